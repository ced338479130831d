/**
 * What each problem code the server can answer says, in the user's words (words.ts reads these
 * tables; it is the one place that turns a problem into text). No import: server tests read it too.
 */

/** A problem as these words read it (api/problem.ts's Problem). */
export interface Problem {
  status: number;
  code: string;
  detail?: string;
  [extra: string]: unknown;
}

type Words = string | ((p: Problem) => string);

/** The driver check's reasons (drivers' CheckReason). */
const REASONS: Record<string, string> = {
  'driver-blocked': 'the driver is blocked',
  'license-expired': 'the licence has expired',
  'carrier-blocked': 'the carrier is blocked',
  'not-registered': 'the driver is not registered',
};

const unit = (p: Problem) => (p.unit === 'truck' ? 'truck' : 'trailer');
const retryIn = (p: Problem) =>
  typeof p.retryAfterSec === 'number'
    ? ` Try again in ${Math.max(1, Math.ceil(p.retryAfterSec))} s.`
    : ' Try again in a minute.';

/**
 * Each code the server can answer, in the user's words: what happened and what to do. Codes are
 * kebab-case and listed once; the server's detail replaces the text only when it is user-worded.
 */
export const PROBLEM_WORDS: Record<string, Words> = {
  // Requests the apps build themselves: a fault of the app or a stale page, never of the user.
  'validation-failed': 'Some fields need a change: see the messages beside them.',
  'malformed-json': 'The app sent something the server could not read. Reload the page and try again.',
  'malformed-body': 'The app sent something the server could not read. Reload the page and try again.',
  'malformed-url': 'This address is not valid. Go back and open the screen from the menu.',
  'malformed-multipart': 'The file could not be read. Choose it again and retry.',
  'invalid-cursor': 'The list changed while you were paging. Reload it to start from the top.',
  'invalid-if-match': 'The app lost track of the record’s version. Reload it and make your change again.',
  'invalid-idempotency-key': 'The app sent a request it could not match. Reload the page and try again.',
  'invalid-path': 'There is no such file.',
  'unsupported-media-type': 'This kind of file is not accepted here. Choose a picture or a PDF.',
  'payload-too-large': 'The file or the text is too large. Choose a smaller file or shorten the text.',
  'range-not-satisfiable': 'The file could not be read from where it stopped. Open it again.',
  // Who may do what.
  unauthenticated: 'You are not logged in, or your session has ended. Log in again.',
  forbidden: 'Your role may not do this. Ask an admin for a role that may.',
  'not-found': 'This record no longer exists: someone may have removed it. Reload the list.',
  'cannot-disable-self': 'You cannot disable your own user. Ask another admin to do it.',
  // Records and their versions.
  duplicate:
    'A record with the same number, name or code already exists. Use another one, or open the existing record.',
  'in-use':
    'Other records still use this one, or it names a record that does not exist. Remove or change those first.',
  'constraint-violated': 'This change breaks one of the yard’s data rules. Check the values and try again.',
  'precondition-failed':
    'Someone else changed this record since you opened it. Reload to see their change, then make yours again.',
  'invalid-transition':
    'This has already moved on (someone else changed it meanwhile). Reload to see where it stands now.',
  'cloud-owned':
    'This is managed in the cloud: change it in the cloud dashboard; this site shows it read-only.',
  'edge-owned': 'This is managed at the site itself: change it on the site’s own dashboard.',
  'not-adoptable':
    'Some of the chosen records can never be taken over from a site. Choose only the records the preview lists as adoptable.',
  'site-linked-from-start':
    'This site was set up linked to the cloud, so it has no records of its own to take over.',
  'site-exists': 'A site with this name already exists. Choose another name.',
  // Gate, yard and units.
  'already-in-yard': (p) =>
    `This ${unit(p)} is already in a yard (checked in, not checked out). Check it out first, or record this check-in anyway.`,
  'not-in-yard': (p) =>
    `This ${unit(p)} is not checked in to this yard. Check the number, or record the check-out anyway.`,
  'same-number-unit':
    'A trailer with this number is already known (in a yard or for another carrier). Check the number, or confirm that this is a different trailer.',
  'check-digit-mismatch':
    'The last digit of this container number does not match the rest. Check the number on the container, or confirm it as painted.',
  'trailer-not-in-yard': 'This trailer is not in the yard. Choose a trailer from the yard list.',
  'location-not-in-yard': 'This spot or door is not in this yard. Choose one from the list.',
  // No closing full stop: the check-in screen adds what to do ("Give a reason to admit anyway").
  'driver-not-allowed': (p) => {
    const reasons = Array.isArray(p.reasons)
      ? (p.reasons as unknown[]).map((r) => REASONS[String(r)] ?? 'not allowed')
      : [];
    return `The driver check refuses this driver${reasons.length ? `: ${reasons.join(', ')}` : ''}`;
  },
  'driver-blocked': 'This driver is blocked. Choose another driver, or unblock this one in the master data.',
  'not-a-yard-driver': 'Only a yard driver can take yard tasks. Choose a yard driver.',
  'no-active-session':
    'The driver is not on shift. Start the shift first, or give the task to a driver on shift.',
  'outside-session': 'This falls outside the driver’s shift. Start the shift first.',
  'gate-direction':
    'This gate does not let traffic through in that direction. Choose a gate for this direction.',
  'gate-busy': 'The gate is already moving. Wait a moment, then try again.',
  'no-relay': 'This gate has no relay to open it. Open it by hand, or ask an admin to set up its relay.',
  'hardware-fault': 'The gate did not answer. Open it by hand and tell maintenance.',
  'rate-limited': (p) => `Too many tries in a short time.${retryIn(p)}`,
  'too-many-idempotency-keys': (p) =>
    `Too many actions are waiting on the server for this account.${retryIn(p)} Nothing was lost: the phone sends them again by itself.`,
  // Cameras and integrations.
  'camera-disabled':
    'This camera is turned off. Turn it on under Admin, Cameras, or go on without a picture.',
  'camera-unreachable':
    'The camera did not answer. Check its network cable and power; the movement can go on without a picture.',
  'camera-timeout':
    'The camera took too long to answer. Try again; the movement can go on without a picture.',
  'camera-auth-failed':
    'The camera refused its user name or password. Ask an admin to check them under Admin, Cameras.',
  'camera-bad-response':
    'The camera sent something that is not a picture. Ask an admin to check its address.',
  'camera-failed': 'The camera could not take a picture. Try again; the movement can go on without one.',
  'address-refused':
    'This address may not be used (it points inside this network). Use the device’s own address.',
  'integration-disabled': 'This integration is turned off. Turn it on under Admin, Integrations.',
  'edge-only': 'This can only be done at the site itself, on its own dashboard.',
  'wrong-source': 'This camera gets its pictures another way. Edit the camera to change how.',
  'secret-required': 'Enter the password or key for this connection.',
  'role-kind-change':
    'A staff user cannot become a carrier user, nor a carrier user staff or another carrier’s. Create a new user instead.',
  'email-not-configured':
    'Email is not set up yet. Enter the mail server under Admin, Email first, then send the test.',
  'not-acceptable':
    'This file type cannot be offered here. Open the gate pass as a page, PDF, picture or calendar entry.',
  'push-not-configured':
    'Notifications are not set up on this server. Ask an admin; tasks still appear while the app is open.',
  // Billing.
  'billing-not-configured': 'This yard has no billing set up yet.',
  'billing-config-exists': 'Billing is already set up for this. Edit the existing setup instead.',
  'yard-config-missing': 'Set up the yard’s billing first, then the carrier’s agreement.',
  'carrier-needs-yard': 'Choose a yard as well as the carrier.',
  'site-not-synced':
    'The yard’s site has not sent all its activity for this period yet, so the invoice could miss some.',
  'too-many-adjustments':
    'This carrier already has the most adjustments a month may hold. Combine some of them into one, then try again.',
  'invoice-exists': 'An invoice for this yard, carrier and month already exists.',
  'invoice-issued': 'This invoice has been issued and can no longer be changed. Void it to make a new one.',
  'invoice-void': 'This invoice is void and can no longer be changed.',
  'period-invoiced': 'This month has already been invoiced.',
  'period-not-past': 'This month has not ended yet.',
  // The link between a site and the cloud.
  'site-offline': 'The site is offline, so this could not reach it. Try again once its link is back.',
  'command-expired':
    'The site did not answer in time; nothing was done there. Try again once its link is back.',
  'command-invalid': 'The site could not carry this out. Reload and try again.',
  'unknown-command':
    'The site does not know this request yet (it may run an older version). Ask an admin to update it.',
  'bad-site-answer':
    'The site gave an answer that could not be read. Try again; if it keeps happening, tell an admin.',
  'clock-skew': 'The site’s clock is far off. Ask an admin to set its time; then try again.',
  'not-cloud': 'This can only be done in the cloud dashboard.',
  'cloud-unreachable': 'The cloud did not answer. Try again once the site’s link is back.',
  'cloud-auth-failed': 'The cloud did not accept this site. Ask an admin to check the site’s link.',
  'cloud-bad-response': 'The cloud gave an answer that could not be read. Try again later.',
  'attachment-not-uploaded':
    'This picture has not reached the cloud yet. Try again once the site has sent it.',
  'upload-in-progress': 'This file is still being sent. Try again in a moment.',
  'upload-interrupted': 'Sending this file was interrupted. Try again.',
  'upload-length-exceeded': 'This file is larger than announced. Send it again.',
  'offset-mismatch': 'Sending this file got out of step. Send it again.',
  'checksum-mismatch': 'This file arrived damaged. Send it again.',
  // The server itself.
  'idempotency-key-in-flight': 'This is still being saved. Wait a moment before trying again.',
  'idempotency-outcome-unknown':
    'It is not known whether this was saved. Reload to check before trying again.',
  'idempotency-key-reused': 'This was already sent with other values. Reload the page and try again.',
  'server-busy': 'The server is busy. Try again in a moment.',
  'database-busy': 'The server was busy and nothing was changed. Try again.',
  'database-unavailable':
    'The server cannot reach its database right now. Try again in a minute; tell an admin if it lasts.',
  'storage-full': 'The server’s disk is full, so nothing was saved. Tell an admin; reading still works.',
  'ui-not-built': 'The apps are not installed on this server. Tell an admin.',
  'internal-error': 'Something went wrong on the server. Try again; tell an admin if it keeps happening.',
  // Dock appointments (docs/domain.md "Booking rules"); the dock schedule adds the free times.
  'slot-taken':
    'That time is no longer free: another booking took the last room at the door. Choose another time.',
  'scheduling-off': 'This yard takes no appointments: switch on scheduling in its scheduling config first.',
  // A carrier's change after the yard's cutoff or the truck's arrival; the detail says when it closed.
  'change-cutoff': 'It is too late to change this booking online. Call the yard to change it.',
  'bad-range': 'The period ends before it starts. Choose a start date before the end date.',
  'range-too-long': 'That period is too long for one report. Choose at most a year.',
  // The apps' own (api/problem.ts).
  'network-error': 'The yard server did not answer. Check the network cable or Wi-Fi, then try again.',
};

/** Codes whose server detail is specific (names the unit, the gate, the wait) and often user-worded. */
export const DETAIL_FIRST = new Set([
  'already-in-yard',
  'same-number-unit',
  'check-digit-mismatch',
  'not-in-yard',
  'not-found',
  'duplicate',
  'in-use',
  'cloud-owned',
  'edge-owned',
  'gate-busy',
  'gate-direction',
  'no-relay',
  'hardware-fault',
  'rate-limited',
  'site-offline',
  'unauthenticated',
  'forbidden',
  'cannot-disable-self',
  'change-cutoff',
  'billing-not-configured',
  'invoice-exists',
  'invoice-issued',
  'invoice-void',
  'period-invoiced',
  'period-not-past',
  'site-not-synced',
  'carrier-needs-yard',
  'camera-unreachable',
  'camera-timeout',
  'camera-disabled',
  'trailer-not-in-yard',
  'location-not-in-yard',
  'driver-blocked',
  'not-a-yard-driver',
  'no-active-session',
  'storage-full',
  'network-error',
]);
