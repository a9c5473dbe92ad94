/** The browser the page tests drive: Chromium as installed by the system (CI: `apt-get install -y chromium`). */
import { execFileSync } from 'node:child_process';

/** Chromium's executable: CHROMIUM_PATH, else the first of chromium, chromium-browser, google-chrome on PATH. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, 'chromium', 'chromium-browser', 'google-chrome'];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      return execFileSync('sh', ['-c', `command -v "$0"`, candidate], { encoding: 'utf8' }).trim();
    } catch {
      // not this one
    }
  }
  throw new Error(
    'the page tests (test/e2e/inbox.test.ts, chat.test.ts) drive a real browser and found none: install Chromium ' +
      '(apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable',
  );
}
