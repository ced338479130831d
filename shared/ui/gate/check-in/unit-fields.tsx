import type { Ref } from 'preact';
import { describedBy, Field } from '../../common/components/field';
import { TypeAhead } from '../../common/components/type-ahead';
import type { CarrierPick, CheckInValues } from './model';
import { carrierLabel, searchCarriers, searchTrailers, searchTrucks } from './search';

export interface FieldsProps {
  values: CheckInValues;
  errors: Partial<Record<keyof CheckInValues, string>>;
  set: (patch: Partial<CheckInValues>) => void;
}

/** What the field says under it: the unit is known, new (the server creates it), or already in a yard. */
function unitHint(kind: 'trailer' | 'truck', text: string, picked: { inYard: boolean } | null): string {
  if (picked?.inYard)
    return `This ${kind} is recorded as in a yard already: checking it in will ask to record anyway.`;
  if (picked) return `Known ${kind}.`;
  if (text.trim()) return `New ${kind}: it is registered with this check-in.`;
  return '';
}

export function TrailerField(props: FieldsProps & { inputRef?: Ref<HTMLInputElement> }) {
  const { values: v, errors, set } = props;
  const hint = unitHint('trailer', v.trailerText, v.trailer);
  return (
    <Field id="ci-trailer" label="Trailer number" error={errors.trailerText} hint={hint || undefined}>
      <TypeAhead
        id="ci-trailer"
        inputRef={props.inputRef}
        text={v.trailerText}
        onText={(text) => set({ trailerText: text, trailer: null })}
        search={searchTrailers}
        itemKey={(t) => t.id}
        renderItem={(t) => (
          <>
            <strong>{t.number}</strong> <span class="muted">{t.type.replace('_', ' ')}</span>
            {t.inYard && <span class="badge warn">in yard</span>}
          </>
        )}
        onSelect={(t) =>
          set({
            trailerText: t.number,
            trailer: { id: t.id, number: t.number, carrierId: t.carrierId, inYard: t.inYard },
          })
        }
        invalid={Boolean(errors.trailerText)}
        describedBy={describedBy('ci-trailer', errors.trailerText, Boolean(hint))['aria-describedby']}
        placeholder="e.g. PRFU 482113"
      />
    </Field>
  );
}

export function TruckField(props: FieldsProps) {
  const { values: v, errors, set } = props;
  const hint = unitHint('truck', v.truckText, v.truck);
  return (
    <Field id="ci-truck" label="Truck plate" error={errors.truckText} hint={hint || undefined}>
      <TypeAhead
        id="ci-truck"
        text={v.truckText}
        onText={(text) => set({ truckText: text, truck: null })}
        search={searchTrucks}
        minChars={2}
        itemKey={(t) => t.id}
        renderItem={(t) => (
          <>
            <strong>{t.plate}</strong> {t.plateRegion && <span class="muted">{t.plateRegion}</span>}
            {t.unitNumber && <span class="muted"> unit {t.unitNumber}</span>}
            {t.inYard && <span class="badge warn">in yard</span>}
          </>
        )}
        onSelect={(t) =>
          set({
            truckText: t.plate ?? '',
            truck: { id: t.id, plate: t.plate ?? '', carrierId: t.carrierId, inYard: t.inYard },
          })
        }
        invalid={Boolean(errors.truckText)}
        describedBy={describedBy('ci-truck', errors.truckText, Boolean(hint))['aria-describedby']}
        placeholder="e.g. TX 8100"
      />
    </Field>
  );
}

/** A carrier by name or SCAC (also used by driver registration, hence its own value props). */
export function CarrierField(props: {
  id: string;
  label?: string;
  text: string;
  carrier: CarrierPick | null;
  error?: string | undefined;
  onChange: (text: string, carrier: CarrierPick | null) => void;
}) {
  const { id, text, carrier, error } = props;
  const hint =
    carrier?.status === 'blocked'
      ? 'This carrier is blocked: its drivers are refused at the gate.'
      : text.trim() && !carrier
        ? 'Choose a carrier from the list (name or SCAC), or leave empty.'
        : undefined;
  return (
    <Field id={id} label={props.label ?? 'Carrier (name or SCAC)'} error={error} hint={hint}>
      <TypeAhead
        id={id}
        text={text}
        onText={(t) => props.onChange(t, null)}
        search={searchCarriers}
        itemKey={(c) => c.id}
        renderItem={(c) => (
          <>
            <strong>{c.name}</strong> {c.scac && <span class="muted">{c.scac}</span>}
            {c.status === 'blocked' && <span class="badge bad">blocked</span>}
          </>
        )}
        onSelect={(c) =>
          props.onChange(carrierLabel(c), { id: c.id, name: c.name, scac: c.scac, status: c.status })
        }
        invalid={Boolean(error)}
        describedBy={describedBy(id, error, Boolean(hint))['aria-describedby']}
        placeholder="e.g. LSLG or Lone Star"
      />
    </Field>
  );
}

/** The load status and the seal number (a matched appointment's load type fills the load). */
export function LoadSealFields(props: FieldsProps) {
  const { values: v, errors, set } = props;
  return (
    <>
      <Field id="ci-load" label="Load" error={errors.loadStatus}>
        <select
          {...describedBy('ci-load', errors.loadStatus)}
          value={v.loadStatus}
          onChange={(e) => set({ loadStatus: e.currentTarget.value as CheckInValues['loadStatus'] })}
        >
          <option value="loaded">Loaded</option>
          <option value="empty">Empty</option>
          <option value="unknown">Unknown</option>
        </select>
      </Field>
      <Field id="ci-seal" label="Seal number" error={errors.sealNumber}>
        <input
          {...describedBy('ci-seal', errors.sealNumber)}
          value={v.sealNumber}
          onInput={(e) => set({ sealNumber: e.currentTarget.value })}
          autoComplete="off"
          spellcheck={false}
        />
      </Field>
    </>
  );
}
