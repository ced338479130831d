import type { AppDatabase } from '../../shared/db/database.js';

/**
 * A small HTTP client for tests: real requests over loopback, JSON in and out.
 */
export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    public token?: string,
  ) {}

  as(token: string | undefined): Client {
    return new Client(this.baseUrl, token);
  }

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Res<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    let payload: RequestInit['body'];
    if (body instanceof FormData || typeof body === 'string' || body instanceof Uint8Array)
      payload = body as RequestInit['body'];
    else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }
}

/** Creates a user of the given role (as admin) and returns a client logged in as them. */
export async function clientWithRole(
  admin: Client,
  role: 'admin' | 'dispatcher' | 'gate' | 'billing' | 'viewer',
  extra: { yardIds?: string[] | null; username?: string } = {},
): Promise<Client> {
  const username = extra.username ?? `${role}-${Math.random().toString(36).slice(2, 8)}`;
  const password = 'correct-horse-battery';
  const created = await admin.post('/api/user', { username, role, password, yardIds: extra.yardIds ?? null });
  if (created.status !== 201) throw new Error(`create ${role} user: ${created.status} ${created.text}`);
  const login = await admin.as(undefined).post('/api/auth/login', { username, password });
  if (login.status !== 200) throw new Error(`login ${role}: ${login.status} ${login.text}`);
  return admin.as(login.body.token);
}

/**
 * Runs one SQL statement with `?` parameters on either database (for asserting what was stored, in
 * suites that run on SQLite and PostgreSQL): column names as the SQL writes them, numbers as
 * numbers. Write the SQL both understand (the schema is the same).
 */
export async function query(db: AppDatabase, text: string, ...params: unknown[]): Promise<any[]> {
  if (db.dialect === 'sqlite') {
    const statement = db.sqlite.prepare(text);
    if (statement.reader) return statement.all(...params);
    statement.run(...params);
    return [];
  }
  let n = 0;
  // ? outside quoted text becomes $1, $2, ... (node-postgres' placeholders).
  const numbered = text.replace(/'(?:[^']|'')*'|\?/g, (m) => (m === '?' ? `$${++n}` : m));
  return (await db.pool.query(numbered, params)).rows;
}

/** Reads every row of a table straight from SQLite (for asserting what was stored). */
export function rows(
  db: { sqlite: import('better-sqlite3').Database },
  sql: string,
  ...params: unknown[]
): any[] {
  return db.sqlite.prepare(sql).all(...params);
}
