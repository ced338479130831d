import { useEffect, useState } from 'preact/hooks';
import { useSubmit } from '../../common/use-submit';
import { disablePush, enablePush, type PushState, refreshPush } from './subscribe';

/** Each state in words: what it means for the driver, and what to do about it. */
const WORDS: Record<PushState, string> = {
  on: 'Notifications are on: new, moved and cancelled tasks show on this phone, even when it is locked.',
  off: 'Notifications are off: new tasks reach you only while the app is open.',
  denied:
    'Notifications are blocked for this app. To allow them, open the browser’s settings for this site ' +
    '(tap the icon beside the address, or Settings › Site settings › Notifications), allow ' +
    'notifications, then tap “Turn on notifications” again.',
  insecure:
    'Notifications need the app opened over HTTPS (an address starting https://). Ask the yard office ' +
    'for the secure address. Until then, tasks reach you only while the app is open.',
  unsupported:
    'This browser cannot show notifications from the app; tasks reach you only while it is open. ' +
    'On an iPhone, add the app to the Home Screen and open it from there.',
  'not-configured':
    'The yard server is not set up to send notifications; tasks reach you only while the app is open.',
  error:
    'Notifications could not be turned on. Check the Wi-Fi and try again; if it keeps failing, tell the yard office.',
};

/** States where a tap on "Turn on notifications" can help. */
const CAN_TURN_ON: ReadonlySet<PushState> = new Set(['off', 'denied', 'error']);

/**
 * The shift screen's "Turn on notifications" control: a tap is needed for the permission prompt.
 * When notifications are already on, the subscription is registered again at start, so a shared
 * phone's notifications follow the driver now signed in.
 */
export function PushToggle() {
  const [state, setState] = useState<PushState | 'checking'>('checking');

  useEffect(() => {
    let live = true;
    refreshPush().then((s) => live && setState(s));
    return () => {
      live = false;
    };
  }, []);

  // enablePush and disablePush answer a state (their failures are the 'error' state), never throw.
  const { busy, run } = useSubmit(async (action: () => Promise<PushState>) => setState(await action()));

  return (
    <section class="push-toggle" aria-labelledby="push-heading">
      <h2 id="push-heading">Notifications</h2>
      <p
        role="status"
        class={state === 'on' ? 'message ok' : state === 'checking' ? 'muted' : 'message warn'}
      >
        {state === 'checking' ? 'Checking notifications…' : WORDS[state]}
      </p>
      {state !== 'checking' && CAN_TURN_ON.has(state) && (
        <button type="button" class="primary" disabled={busy} onClick={() => run(() => enablePush())}>
          {busy ? 'Turning on…' : 'Turn on notifications'}
        </button>
      )}
      {state === 'on' && (
        <button type="button" disabled={busy} onClick={() => run(disablePush)}>
          Turn off notifications
        </button>
      )}
    </section>
  );
}
