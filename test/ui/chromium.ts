/**
 * How the browser tests and the UI bench start Debian's Chromium headless (playwright-core
 * downloads nothing). Without the background-networking flags it tries to reach Google's hosts,
 * which this machine's closed network refuses.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
