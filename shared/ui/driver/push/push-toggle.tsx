/**
 * The shift screen's "Turn on notifications" control (a tap is needed for the permission prompt).
 * FOUNDATION STUB: the push helper builds this.
 */
export function PushToggle() {
  return null;
}
