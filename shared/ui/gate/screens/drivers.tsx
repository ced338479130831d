import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { Schemas } from '../../common/api/client';
import { canWorkGate, session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { putDriverInDraft } from '../check-in/model';
import { findDrivers } from '../drivers/data';
import { RegisterDriverForm } from '../drivers/register-form';
import '../check-in/check-in.css';

/**
 * Walk-in driver registration, and the drivers already known (search by name, phone or licence).
 * A driver just registered can be taken straight to the check-in, filled in.
 */
export function Drivers() {
  const { route } = useLocation();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Schemas['Driver'][] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [created, setCreated] = useState<Schemas['Driver'] | null>(null);
  const mayRegister = canWorkGate(session.principal.value?.role);

  useEffect(() => {
    let alive = true;
    const query = q.trim();
    const timer = setTimeout(() => {
      findDrivers(query).then(
        (items) => {
          if (!alive) return;
          setFound(items);
          setFailed(null);
        },
        (err: Error) => alive && setFailed(err.message),
      );
    }, 200);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [q, created?.id]);

  const toCheckIn = (d: Schemas['Driver']) => {
    putDriverInDraft(d);
    route('/gate/');
  };

  return (
    <div class="drivers-screen">
      <h1>Drivers</h1>
      <div class="check-in">
        <section class="panel">
          {mayRegister ? (
            <RegisterDriverForm key={created?.id ?? 'new'} onCreated={setCreated} />
          ) : (
            <FormMessage kind="warn">Only gate staff or an admin register drivers.</FormMessage>
          )}
          {created && (
            <div class="message ok" role="status">
              <p>
                {created.firstName} {created.lastName} is registered.
              </p>
              <button type="button" class="primary" onClick={() => toCheckIn(created)}>
                Check in with this driver
              </button>
            </div>
          )}
        </section>
        <section class="panel" aria-labelledby="dl-heading">
          <h2 id="dl-heading">Known drivers</h2>
          <label for="dl-q">Find by name, phone or licence</label>
          <input
            id="dl-q"
            type="search"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
            autoComplete="off"
          />
          {failed && <FormMessage kind="error">The list could not be loaded: {failed}</FormMessage>}
          {found === null && !failed && <p class="muted">Loading drivers…</p>}
          {found?.length === 0 && <p class="muted">No driver matches. Register the driver on the left.</p>}
          {found && found.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Phone</th>
                  <th>Licence</th>
                  <th>Status</th>
                  <th>
                    <span class="visually-hidden">Action</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {found.map((d) => (
                  <tr key={d.id}>
                    <td>
                      {d.firstName} {d.lastName}
                    </td>
                    <td>{d.phone ?? ''}</td>
                    <td>{[d.licenseNumber, d.licenseRegion].filter(Boolean).join(' ')}</td>
                    <td>
                      <span class={`badge ${d.status === 'blocked' ? 'bad' : 'ok'}`}>{d.status}</span>
                    </td>
                    <td>
                      <button type="button" onClick={() => toCheckIn(d)}>
                        Check in<span class="visually-hidden">: {`${d.firstName} ${d.lastName}`}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}
