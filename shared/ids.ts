import { v7 as uuidv7 } from 'uuid';

/** New record id: a UUIDv7 string, unique across sites and ordered by creation time. */
export function newId(): string {
  return uuidv7();
}
