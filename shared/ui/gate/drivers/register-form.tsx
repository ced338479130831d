import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { initForm, setFields, withServerErrors } from '../../common/form-state';
import { useSubmit } from '../../common/use-submit';
import type { CarrierPick } from '../check-in/model';
import { CarrierField } from '../check-in/unit-fields';
import { registerDriver } from './data';

const EMPTY = {
  firstName: '',
  lastName: '',
  carrierText: '',
  carrier: null as CarrierPick | null,
  phone: '',
  licenseNumber: '',
  licenseRegion: '',
  licenseExpiresOn: '',
};
type Values = typeof EMPTY;
const ALIASES: Record<string, keyof Values> = { carrierId: 'carrierText', kind: 'carrierText' };

/** "Dale Brooks" typed in the check-in's driver field: first word(s) and last word. */
export function splitName(text: string): { firstName: string; lastName: string } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return { firstName: words[0] ?? '', lastName: '' };
  return { firstName: words.slice(0, -1).join(' '), lastName: words.at(-1) ?? '' };
}

/**
 * A walk-in (carrier) driver registered at the gate: name, carrier, phone, licence. The server's
 * rules stand (E.164 phone, licence letters and digits, region code); its field errors land here.
 */
export function RegisterDriverForm(props: {
  initialName?: string;
  onCreated: (driver: Schemas['Driver']) => void;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState(() => initForm({ ...EMPTY, ...splitName(props.initialName ?? '') }));
  const [problem, setProblem] = useState<string[]>([]);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const set = (patch: Partial<Values>) => setForm((f) => setFields(f, patch));
  const v = form.values;
  const err = form.errors;

  const register = useSubmit(async () => {
    setProblem([]);
    const text = (s: string) => s.trim() || undefined;
    try {
      const driver = await registerDriver({
        kind: 'carrier',
        carrierId: v.carrier?.id ?? null,
        firstName: v.firstName.trim(),
        lastName: v.lastName.trim(),
        // Spaces, dashes and brackets are how people write numbers; the server wants E.164.
        phone: text(v.phone.replace(/[\s()-]/g, '')) ?? null,
        licenseNumber: text(v.licenseNumber) ?? null,
        licenseRegion: text(v.licenseRegion) ?? null,
        licenseExpiresOn: text(v.licenseExpiresOn) ?? null,
      });
      setForm(initForm(EMPTY));
      props.onCreated(driver);
    } catch (caught) {
      if (!(caught instanceof ProblemError)) throw caught;
      const placed = withServerErrors(form, caught.fieldErrors(), ALIASES);
      setForm(placed.state);
      const fieldsCount = Object.keys(placed.state.errors).length;
      setProblem(
        placed.unplaced.length || fieldsCount === 0
          ? [caught.message, ...placed.unplaced]
          : [`Correct the marked field${fieldsCount === 1 ? '' : 's'} and register again.`],
      );
      throw caught;
    }
  });
  const busy = register.busy;
  const submit = (e: Event) => {
    e.preventDefault();
    void register.run();
  };

  const input = (name: keyof Values, label: string, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field id={`dr-${name}`} label={label} error={err[name]} hint={hint}>
      <input
        {...describedBy(`dr-${name}`, err[name], Boolean(hint))}
        value={v[name] as string}
        onInput={(e) => set({ [name]: e.currentTarget.value })}
        {...extra}
      />
    </Field>
  );

  return (
    <form
      class="register-driver"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && props.onCancel && !e.defaultPrevented) props.onCancel();
      }}
      aria-labelledby="dr-heading"
      noValidate
    >
      <h2 id="dr-heading">Register a walk-in driver</h2>
      {problem.length > 0 && (
        <FormMessage kind="error">
          {problem.map((p) => (
            <div key={p}>{p}</div>
          ))}
        </FormMessage>
      )}
      <div class="grid-2">
        <Field id="dr-firstName" label="First name" error={err.firstName}>
          <input
            {...describedBy('dr-firstName', err.firstName)}
            ref={first}
            value={v.firstName}
            onInput={(e) => set({ firstName: e.currentTarget.value })}
            autoComplete="off"
          />
        </Field>
        {input('lastName', 'Last name', { autoComplete: 'off' })}
      </div>
      <CarrierField
        id="dr-carrier"
        label="Carrier (name or SCAC)"
        text={v.carrierText}
        carrier={v.carrier}
        error={err.carrierText}
        onChange={(carrierText, carrier) => set({ carrierText, carrier })}
      />
      {input(
        'phone',
        'Phone',
        { type: 'tel', autoComplete: 'off' },
        'With the country code, e.g. +1 214 555 0123',
      )}
      <div class="grid-3">
        {input('licenseNumber', 'Licence number', { autoComplete: 'off' })}
        {input('licenseRegion', 'Issued in', { autoComplete: 'off' }, 'e.g. TX, US-TX or DE')}
        {input('licenseExpiresOn', 'Licence expires', { type: 'date' })}
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Registering…' : 'Register driver'}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel <kbd>Esc</kbd>
          </button>
        )}
      </div>
    </form>
  );
}
