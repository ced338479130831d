import { describedBy, Field } from '../../common/components/field';
import { ReasonField } from '../reason-field';
import type { FreeSlot } from './schedule-data';
import { clock } from './schedule-words';

export type BookErrors = Partial<
  Record<
    | 'loadTypeId'
    | 'startAt'
    | 'doorId'
    | 'carrierId'
    | 'refs'
    | 'trailerNumber'
    | 'notes'
    | 'override.reason',
    string
  >
>;

/**
 * Each slot's time as offered: "10:15 to 11:15 (3 doors free)"; a fall-back day's repeated hour
 * with its offset, so the two are told apart.
 */
export function slotLabels(all: FreeSlot[], timeZone: string): string[] {
  const seen = new Map<string, number>();
  for (const s of all) seen.set(clock(s.startAt, timeZone), (seen.get(clock(s.startAt, timeZone)) ?? 0) + 1);
  return all.map((s) => {
    const twice = (seen.get(clock(s.startAt, timeZone)) ?? 0) > 1;
    const doors = s.doors ? ` (${s.doors.length} ${s.doors.length === 1 ? 'door' : 'doors'} free)` : '';
    return `${clock(s.startAt, timeZone, twice)} to ${clock(s.endAt, timeZone)}${doors}`;
  });
}

/**
 * The booking dialog's time: one of the free times of the chosen load type, or, booking outside
 * the rules (docs/domain.md "Booking rules": office override), any wall-clock time with a reason.
 */
export function BookTime(props: {
  override: boolean;
  wallTime: string;
  onWallTime: (value: string) => void;
  reason: string;
  onReason: (value: string) => void;
  errors: BookErrors;
  slots: FreeSlot[] | null;
  labels: string[];
  startAt: string;
  onStartAt: (value: string) => void;
}) {
  const slots = props.slots;
  return props.override ? (
    <>
      <Field
        id="book-start"
        label="Time"
        error={props.errors.startAt}
        hint="The yard's time; the door must still have room."
      >
        <input
          {...describedBy('book-start', props.errors.startAt, true)}
          type="time"
          value={props.wallTime}
          onInput={(e) => props.onWallTime(e.currentTarget.value)}
        />
      </Field>
      <ReasonField
        id="book-override-reason"
        label="Reason for booking outside the rules"
        hint="Kept with the appointment's history."
        value={props.reason}
        error={props.errors['override.reason']}
        onInput={props.onReason}
      />
    </>
  ) : (
    <Field
      id="book-start"
      label="Time"
      error={props.errors.startAt}
      hint="Only the times still free are offered."
    >
      <select
        {...describedBy('book-start', props.errors.startAt, true)}
        value={props.startAt}
        disabled={!slots}
        onChange={(e) => props.onStartAt(e.currentTarget.value)}
      >
        <option value="">
          {slots === null
            ? 'Loading the free times…'
            : slots.length
              ? 'Choose a time'
              : 'No free time that day'}
        </option>
        {slots?.map((s, i) => (
          <option key={s.startAt} value={s.startAt}>
            {props.labels[i]}
          </option>
        ))}
      </select>
    </Field>
  );
}
