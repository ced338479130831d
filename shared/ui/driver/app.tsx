import { session } from '../common/auth';

/**
 * The driver app: the login (driver code + PIN) until a driver is signed in, then the shift
 * screen: the current task card, the queue, pending and conflicting actions.
 * FOUNDATION STUB: the screens helper builds this.
 */
export function DriverApp() {
  const principal = session.principal.value;
  return (
    <main class="driver">
      <h1>Yard driver</h1>
      {principal ? <p>Signed in as {principal.name}</p> : <p>Log in with your driver code and PIN.</p>}
    </main>
  );
}
