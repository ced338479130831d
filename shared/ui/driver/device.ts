const DEVICE_KEY = 'yard.driver.deviceId';

/**
 * This phone's id, made once and kept in localStorage: the server knows which device a shift runs
 * on, and keeps one push registration per device, by it.
 */
export function deviceId(): string {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = `phone-${crypto.randomUUID()}`;
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}
