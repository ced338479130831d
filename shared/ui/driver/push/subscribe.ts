/**
 * Web Push for the driver app: asks for permission (from a tap), subscribes through the service
 * worker with the server's VAPID public key and registers the subscription for this device.
 * FOUNDATION STUB: the push helper builds this.
 */
export type PushState = 'on' | 'off' | 'denied' | 'unsupported' | 'error';

export async function enablePush(): Promise<PushState> {
  return 'unsupported';
}
