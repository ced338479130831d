import { computed, signal } from '@preact/signals';

/**
 * The portal's addresses: /carrier/ (book), /carrier/bookings, /carrier/pass/<id> and
 * /carrier/invoices. A router library would cost more of the 50 kB budget than these lines (the
 * driver app does the same, driver/route.ts).
 */
export const path = signal(typeof location === 'undefined' ? '/carrier/' : location.pathname);

export type Screen =
  | { name: 'book' }
  | { name: 'bookings' }
  | { name: 'pass'; id: string }
  | { name: 'invoices' }
  | { name: 'unknown' };

export function screenOf(pathname: string): Screen {
  if (pathname === '/carrier/' || pathname === '/carrier') return { name: 'book' };
  if (/^\/carrier\/bookings\/?$/.test(pathname)) return { name: 'bookings' };
  if (/^\/carrier\/invoices\/?$/.test(pathname)) return { name: 'invoices' };
  const pass = /^\/carrier\/pass\/([^/?#]+)\/?$/.exec(pathname);
  if (pass?.[1]) return { name: 'pass', id: decodeURIComponent(pass[1]) };
  return { name: 'unknown' };
}

export const screen = computed(() => screenOf(path.value));

export const passHref = (id: string) => `/carrier/pass/${encodeURIComponent(id)}`;

export function go(href: string): void {
  if (href !== location.pathname) {
    history.pushState(null, '', href);
    path.value = location.pathname;
  }
  window.scrollTo(0, 0);
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    path.value = location.pathname;
  });
  // Links inside the portal change the screen without loading the page again (the event stream
  // and what was loaded stay); a modified click (new tab) is left to the browser.
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    const href = a?.getAttribute('href');
    if (!a || !href?.startsWith('/carrier/') || a.hasAttribute('download') || a.target) return;
    e.preventDefault();
    go(href);
  });
}
