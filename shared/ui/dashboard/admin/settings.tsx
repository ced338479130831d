import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { MANAGED_IN_CLOUD } from '../records/ownership';
import { ownership, timeZone } from '../scope';
import { loadSettings, type Setting, saveSetting } from './data';
import { fromText, kindOf, showValue, toText } from './setting-values';
import '../records/records.css';

const SET_BY_SITE = "Set by each site: change it at the site's own dashboard.";

/** Why a setting cannot be changed here: a global one at a linked site, a site one at the cloud. */
function readOnly(s: Setting): string | null {
  if (s.scope === 'global' && ownership.value.masterDataReadOnly) return MANAGED_IN_CLOUD;
  if (s.scope === 'site' && ownership.value.siteRecordsReadOnly) return SET_BY_SITE;
  return null;
}

/** Every setting with what it does, its scope, default and current value; edit or reset each. */
export function Settings() {
  const [items, setItems] = useState<Setting[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<Setting | null>(null);
  const load = () =>
    loadSettings().then(
      (settings) => {
        setItems(settings);
        setProblem(null);
      },
      (err) => setProblem(problemText(err, 'setting')),
    );
  useEffect(() => {
    load();
  }, []);
  const saved = (message: string) => {
    setEditing(null);
    setNotice(message);
    load();
  };
  return (
    <section class="records" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <p class="muted">
        Organisation settings apply to every site and are set in the cloud; site settings are set at each
        site.
      </p>
      {notice && <FormMessage kind="ok">{notice}</FormMessage>}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {!items && !problem && <p class="muted">Loading settings…</p>}
      {items && (
        <table class="records-table settings">
          <caption>Settings ({items.length})</caption>
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">What it does</th>
              <th scope="col">Scope</th>
              <th scope="col">Default</th>
              <th scope="col">Current value</th>
              <th scope="col">Last changed</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => {
              const why = readOnly(s);
              return (
                <tr key={s.name}>
                  <th scope="row">
                    <code>{s.name}</code>
                  </th>
                  <td>{s.description}</td>
                  <td>{s.scope === 'global' ? 'Organisation' : 'Site'}</td>
                  <td>{showValue(s.default)}</td>
                  <td>
                    {showValue(s.value)}
                    {s.isDefault && <span class="muted"> (default)</span>}
                  </td>
                  <td>{s.updatedAt ? yardDateTime(s.updatedAt, timeZone.value) : '—'}</td>
                  <td class="row-actions">
                    {why ? (
                      <span class="muted">{why}</span>
                    ) : (
                      <button type="button" aria-label={`Change ${s.name}`} onClick={() => setEditing(s)}>
                        Change
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {editing && <SettingDialog setting={editing} onSaved={saved} onClose={() => setEditing(null)} />}
    </section>
  );
}

function SettingDialog(props: { setting: Setting; onSaved: (message: string) => void; onClose: () => void }) {
  const s = props.setting;
  const kind = kindOf(s.default);
  const [typed, setTyped] = useState<string | boolean>(toText(s.value));
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | null>(null);
  const saving = useSubmit(async (value: unknown, done: string) => {
    setError(undefined);
    setMessage(null);
    try {
      await saveSetting(s.name, value);
      props.onSaved(done);
    } catch (err) {
      const fieldError = err instanceof ProblemError ? Object.values(err.fieldErrors())[0] : undefined;
      if (fieldError) setError(fieldError);
      else setMessage(problemText(err, 'setting'));
    }
  });
  const busy = saving.busy;
  const put = saving.run;
  const id = 'setting-value';
  const input =
    kind === 'boolean' ? (
      <input
        type="checkbox"
        {...describedBy(id, error)}
        checked={typed === true}
        onChange={(e) => setTyped(e.currentTarget.checked)}
      />
    ) : kind === 'list' ? (
      <textarea
        {...describedBy(id, error)}
        rows={5}
        value={String(typed)}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
    ) : (
      <input
        type="text"
        inputMode={kind === 'number' ? 'numeric' : undefined}
        {...describedBy(id, error)}
        value={String(typed)}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
    );
  return (
    <Dialog
      id="setting"
      title={
        <>
          Change <code>{s.name}</code>
        </>
      }
      onClose={props.onClose}
    >
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          put(fromText(kind, typed), `Set ${s.name} to ${showValue(fromText(kind, typed))}.`);
        }}
      >
        <p>{s.description}</p>
        <p class="muted">Default: {showValue(s.default)}</p>
        {message && <FormMessage kind="error">{message}</FormMessage>}
        <Field
          id={id}
          label={kind === 'boolean' ? 'On' : kind === 'list' ? 'Value (one per line)' : 'Value'}
          error={error}
        >
          {input}
        </Field>
        <div class="actions">
          <button type="submit" class="button primary" disabled={busy}>
            Save
          </button>
          {!s.isDefault && (
            <button
              type="button"
              disabled={busy}
              onClick={() => put(null, `Reset ${s.name} to its default.`)}
            >
              Reset to default
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
