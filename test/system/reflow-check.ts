import type { Page } from 'playwright-core';

/**
 * Reflow checks (WCAG 1.4.10, docs/web-apps.md): whether a screen drawn at a narrow width makes the
 * page scroll sideways, for test/system/ui-reflow.test.ts and the screens' own browser tests.
 */

/**
 * What makes the page wider than the window: the document's own scroll width, and each visible
 * element that reaches past the window's edges unless an ancestor clips or scrolls it (a table in
 * its own scrolling region is fine; the region itself is then checked).
 */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const width = doc.clientWidth;
    const out: string[] = [];
    if (doc.scrollWidth > width) out.push(`page scrolls sideways: ${doc.scrollWidth} > ${width}`);
    const name = (el: Element) => {
      const cls =
        typeof el.className === 'string' && el.className
          ? `.${el.className.trim().split(/\s+/).join('.')}`
          : '';
      const text = (el.textContent ?? '').trim().slice(0, 30);
      return `${el.tagName.toLowerCase()}${cls} "${text}"`;
    };
    const contained = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (s.overflowX !== 'visible' || s.position === 'fixed') return true;
      }
      return false;
    };
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.clip === 'rect(0px, 0px, 0px, 0px)') continue;
      if (r.right > width + 1 || r.left < -1) {
        if (contained(el)) continue;
        out.push(`${name(el)} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
      }
    }
    return out.slice(0, 12);
  });
}

/** Waits until the screen has drawn its data (no "Loading" left in the main region). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const main = document.querySelector('main');
      return Boolean(main?.textContent) && !/Loading/i.test(main?.textContent ?? '');
    },
    undefined,
    { timeout: 20_000 },
  );
  await page.waitForTimeout(400);
}
