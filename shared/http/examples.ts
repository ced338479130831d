/**
 * Ids used in the OpenAPI examples of request bodies, one per kind of record, so the examples of
 * related operations refer to each other (the gate of the yard, the trailer of the task, ...).
 * They are examples only: no database holds them.
 */
export const EXAMPLE_ID = {
  yard: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
  gate: '01936b2e-9b21-7a10-8c11-1d2e3f405162',
  location: '01936b2e-a0c4-7e2b-b3d4-5e6f708192a3',
  location2: '01936b2e-a0c4-7e2b-b3d4-5e6f708192a4',
  carrier: '01936b2e-b1d5-7f3c-84e5-6f708192a3b4',
  driver: '01936b2e-c2e6-7a4d-95f6-708192a3b4c5',
  trailer: '01936b2e-d3f7-7b5e-a607-8192a3b4c5d6',
  truck: '01936b2e-e408-7c6f-b718-92a3b4c5d6e7',
  attachment: '01936b2e-f519-7d70-8829-a3b4c5d6e7f8',
  movement: '01936b2f-395d-7bb4-8c6d-e7f8091a2b3c',
  camera: '01936b2f-062a-7e81-993a-b4c5d6e7f809',
  integration: '01936b2f-173b-7f92-aa4b-c5d6e7f8091a',
  task: '01936b2f-284c-7aa3-bb5c-d6e7f8091a2b',
  task2: '01936b2f-284c-7aa3-bb5c-d6e7f8091a2c',
} as const;
