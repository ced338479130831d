import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { describedBy, Field } from '../../common/components/field';
import { TypeAhead } from '../../common/components/type-ahead';
import { checkDriver, driverCheckRequired } from './data';
import { driverPick } from './model';
import { searchDrivers } from './search';
import type { FieldsProps } from './unit-fields';

export type DriverCheck =
  | { kind: 'none' }
  | { kind: 'checking' }
  | { kind: 'done'; allowed: boolean; reasons: string[]; driver: Schemas['Driver'] | undefined }
  | { kind: 'failed'; message: string };

/** The admission check of the chosen driver, asked as soon as one is chosen (the same check the movement makes). */
export function useDriverCheck(driverId: string | undefined, reload: number): DriverCheck {
  const [check, setCheck] = useState<DriverCheck>({ kind: 'none' });
  useEffect(() => {
    if (!driverId) {
      setCheck({ kind: 'none' });
      return;
    }
    let alive = true;
    setCheck({ kind: 'checking' });
    checkDriver(driverId).then(
      (c) => alive && setCheck({ kind: 'done', allowed: c.allowed, reasons: c.reasons, driver: c.driver }),
      (err: Error) => alive && setCheck({ kind: 'failed', message: err.message }),
    );
    return () => {
      alive = false;
    };
  }, [driverId, reload]);
  return check;
}

/** Whether this site refuses check-ins of drivers the check refuses (setting gate.requireDriverCheck). */
export function useCheckRequired(): boolean {
  const [required, setRequired] = useState(true);
  useEffect(() => {
    driverCheckRequired().then(
      (required) => setRequired(required),
      () => undefined, // unknown: assume required, the server has the last word
    );
  }, []);
  return required;
}

export function reasonText(reason: string, driver: Schemas['Driver'] | undefined): string {
  switch (reason) {
    case 'driver-blocked':
      return `The driver is blocked${driver?.blockedReason ? `: ${driver.blockedReason}` : ''}.`;
    case 'license-expired':
      return `The driving licence expired${driver?.licenseExpiresOn ? ` on ${driver.licenseExpiresOn}` : ''}.`;
    case 'carrier-blocked':
      return "The driver's carrier is blocked.";
    case 'not-registered':
      return 'The driver is not registered.';
    default:
      return reason;
  }
}

export function DriverField(
  props: FieldsProps & {
    check: DriverCheck;
    required: boolean;
    canOverride: boolean;
    onRegister: () => void;
  },
) {
  const { values: v, errors, set, check } = props;
  const refused = check.kind === 'done' && !check.allowed;
  return (
    <div class="driver-block">
      <Field id="ci-driver" label="Driver (name, phone or licence)" error={errors.driverText}>
        <TypeAhead
          id="ci-driver"
          text={v.driverText}
          onText={(text) => set({ driverText: text, driver: null, overrideReason: '' })}
          search={searchDrivers}
          minChars={2}
          itemKey={(d) => d.id}
          renderItem={(d) => (
            <>
              <strong>
                {d.firstName} {d.lastName}
              </strong>{' '}
              <span class="muted">{[d.phone, d.licenseNumber].filter(Boolean).join(' · ')}</span>
              {d.status === 'blocked' && <span class="badge bad">blocked</span>}
            </>
          )}
          onSelect={(d) => set({ driverText: `${d.firstName} ${d.lastName}`, driver: driverPick(d) })}
          invalid={Boolean(errors.driverText)}
          describedBy={[describedBy('ci-driver', errors.driverText)['aria-describedby'], 'ci-driver-check']
            .filter(Boolean)
            .join(' ')}
          placeholder="e.g. Brooks or +1 214 555 0123"
        />
      </Field>
      <div id="ci-driver-check" class="driver-check" aria-live="polite">
        {check.kind === 'checking' && <span class="muted">Checking the driver…</span>}
        {check.kind === 'failed' && (
          <span class="badge warn">
            The check did not answer ({check.message}); the gate checks again on submit.
          </span>
        )}
        {check.kind === 'done' && check.allowed && <span class="badge ok">Allowed in</span>}
        {refused && (
          <div class="refused">
            <span class="badge bad">Refused</span>
            <ul>
              {check.reasons.map((r) => (
                <li key={r}>{reasonText(r, check.driver)}</li>
              ))}
            </ul>
            {!props.required && (
              <p class="muted">This site does not require the check: the driver may enter.</p>
            )}
          </div>
        )}
        {v.driverText.trim().length >= 2 && !v.driver && (
          <button type="button" class="link" onClick={props.onRegister}>
            Not found? Register a walk-in driver
          </button>
        )}
      </div>
      {refused && props.required && props.canOverride && (
        <Field
          id="ci-override"
          label="Admit anyway: reason (recorded)"
          error={errors.overrideReason}
          hint="Say why, e.g. licence renewal shown on paper; your name is recorded with it."
        >
          <input
            {...describedBy('ci-override', errors.overrideReason, true)}
            value={v.overrideReason}
            onInput={(e) => set({ overrideReason: e.currentTarget.value })}
            required
          />
        </Field>
      )}
      {refused && props.required && !props.canOverride && (
        <p class="message error" role="alert">
          Only gate staff or an admin may admit a refused driver. Ask them, or send the driver to the office.
        </p>
      )}
    </div>
  );
}
