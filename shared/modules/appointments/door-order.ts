/**
 * Door order (docs/domain.md "Booking rules"): booking assigns the first free allowed door in the
 * natural order of the door names, so "Door 2" comes before "Door 10" (digits compare as numbers,
 * case and accents do not matter). Equal names fall back to the id so the order is stable.
 */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export interface NamedDoor {
  id: string;
  name: string;
}

export function compareDoors(a: NamedDoor, b: NamedDoor): number {
  return collator.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A sorted copy, in door order. */
export function inDoorOrder<T extends NamedDoor>(doors: readonly T[]): T[] {
  return [...doors].sort(compareDoors);
}
