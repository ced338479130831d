/** A load type's direction in the office's words. */
export const DIRECTION_WORDS: Record<'inbound' | 'outbound' | 'both', string> = {
  inbound: 'Inbound (unload)',
  outbound: 'Outbound (load)',
  both: 'Inbound or outbound',
};

/**
 * The allowed doors of a load type by name, in door order (`doors` comes sorted), or "Every door"
 * when it names none; a door no longer in the list is counted rather than hidden.
 */
export function doorsText(doorIds: string[], doors: { id: string; name: string }[]): string {
  if (doorIds.length === 0) return 'Every door';
  const known = doors.filter((d) => doorIds.includes(d.id)).map((d) => d.name);
  const gone = doorIds.length - known.length;
  return [...known, ...(gone > 0 ? [`${gone} removed door${gone > 1 ? 's' : ''}`] : [])].join(', ');
}
