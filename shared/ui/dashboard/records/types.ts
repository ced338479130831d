import type { ComponentChildren } from 'preact';
import type { Role } from '../../common/auth';

/** How a field is typed in: the input it gets and how its text becomes the value sent. */
export type FieldKind =
  | 'text'
  | 'textarea'
  | 'number'
  | 'select'
  | 'checkbox'
  | 'date'
  | 'password'
  /** A carrier picked from the carrier list (id, or empty for none). */
  | 'carrier'
  /** A yard scope: every yard (null), or the yards ticked. */
  | 'yards'
  /** One of a list loaded from the API (the field's `lookup`: a yard's gates, the integrations). */
  | 'lookup'
  /** A JSON object typed as text (an integration's config, whose shape depends on its kind). */
  | 'json';

export interface Option {
  value: string;
  label: string;
}

/** Choices loaded from the API for a 'lookup' field. */
export interface Lookup {
  /** Starts loading (once per key); `options` fills in when it is done. */
  load(): void;
  options(): Option[];
  /** What the empty choice says ("No gate"). */
  none: string;
}

/**
 * One field of a record form. `name` is the field's path in the record and in the body
 * ("contact.email"): a dotted field belongs to an object sent whole (a contact, an address, a relay).
 */
export interface FieldSpec {
  name: string;
  label: string;
  kind?: FieldKind;
  hint?: string;
  options?: readonly Option[];
  /** When editing: the choices the record as loaded may change to (a staff user's role stays a staff role). */
  editOptions?: (loaded: FormValues) => readonly Option[];
  lookup?: Lookup;
  required?: boolean;
  /** Only when creating (a username, a yard's site): shown, not editable, afterwards. */
  createOnly?: boolean;
  /** Only when editing. */
  editOnly?: boolean;
  /** Emptying the field sends null (clears the value) instead of leaving it unchanged. */
  nullable?: boolean;
  /** The value a new record starts with (as typed: text, or a boolean for a checkbox). */
  initial?: string | boolean;
  /** Only while the form's other values make it apply (a user's carrier, for role carrier); else neither shown nor sent. */
  shownWhen?: (values: FormValues) => boolean;
}

/** A form's values by field name: text as typed, booleans, and yard scopes (null = every yard). */
export type FormValue = string | boolean | string[] | null;
export type FormValues = Record<string, FormValue>;

export interface Column<T> {
  label: string;
  value: (record: T) => ComponentChildren;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

/** A record as read for editing, with the ETag to send back as If-Match. */
export interface Loaded<T> {
  record: T;
  etag: string | undefined;
}

export interface ListQuery {
  q?: string;
  cursor?: string;
  filter: Record<string, string>;
}

/** The calls behind a list of records; each spec writes them with the typed client. */
export interface RecordApi<T> {
  list(query: ListQuery): Promise<Page<T>>;
  /** The record fresh from the server with its ETag (when the API has no GET by id: the list's row). */
  load(record: T): Promise<Loaded<T>>;
  create?(body: Record<string, unknown>): Promise<T>;
  update?(record: T, body: Record<string, unknown>, etag: string | undefined): Promise<T>;
}

/** Something done to one record beyond editing: delete, disable, block, revoke, reset a password. */
export interface RowAction<T> {
  label: string;
  /** Irreversible or disruptive: a red button, and the confirmation says what happens. */
  danger?: boolean;
  /** What the confirmation asks ("Delete carrier Prairie Freight?"). */
  confirm: (record: T) => string;
  /** Fields asked for in the confirmation (a reason, a new password). */
  fields?: FieldSpec[];
  run: (loaded: Loaded<T>, body: Record<string, unknown>) => Promise<unknown>;
  /** Only for some rows (Enable for a disabled user). */
  shown?: (record: T) => boolean;
  may: (role: Role | undefined) => boolean;
  /** What the list says afterwards ("Carrier deleted."). */
  done: (record: T) => string;
}

/** Who writes a kind of record when a site is linked to a cloud (DESIGN.md "Roles of the two processes"). */
export type Owner = 'cloud' | 'site' | 'both';

/** One kind of record: its list, its form and who may change it. A screen is one of these. */
export interface EntitySpec<T extends { id: string }> {
  /** "Carriers" (the heading and the table's caption). */
  title: string;
  /** "carrier" (in buttons and messages). */
  singular: string;
  /** What these records are (a function when it names the chosen yard). */
  intro?: string | (() => string);
  columns: Column<T>[];
  fields: FieldSpec[];
  /** The search box, when the list takes `q`. */
  search?: { label: string; hint?: string };
  filters?: { name: string; label: string; options: readonly Option[] }[];
  api: RecordApi<T>;
  owner: Owner | ((record: T) => Owner);
  may: { create: (role: Role | undefined) => boolean; edit: (role: Role | undefined) => boolean };
  actions?: RowAction<T>[];
  /** The name of one record in messages ("Prairie Freight"). */
  label: (record: T) => string;
  /** What an empty list says to do. */
  empty: string;
  /** Why a record of this kind is never edited (an API key: revoke it, make a new one). */
  notEditable?: string;
  /** Shown once after a create (an API key's secret). */
  afterCreate?: (record: T) => ComponentChildren;
}
