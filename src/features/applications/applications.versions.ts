/**
 * Minimum SDK versions, as Unleash 8.2 lists them (`findOutdatedSDKs`): an SDK reporting
 * `<name>:<semver>` below its minimum is outdated. Unknown names and versions that are not semver
 * never count.
 */
const MINIMUM_VERSIONS: Record<string, string> = {
  'unleash-client-node': '5.3.2',
  'unleash-client-nextjs': '1.6.2',
  'unleash-client-java': '9.2.0',
  'unleash-client-go': '4.1.0',
  'unleash-client-python': '5.11.0',
  'unleash-client-ruby': '5.0.0',
  'unleash-client-dotnet': '4.1.3',
  'unleash-client-php': '2.3.0',
  'unleash-node-sdk': '6.6.0',
  'unleash-nextjs-sdk': '1.6.2',
  'unleash-java-sdk': '11.0.2',
  'unleash-go-sdk': '5.0.3',
  'unleash-python-sdk': '6.3.0',
  'unleash-ruby-sdk': '6.3.1',
  'unleash-dotnet-sdk': '5.3.0',
  'unleash-php-sdk': '2.9.1',
};

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** -1, 0 or 1; a pre-release sorts below its release (enough for a minimum check). */
function compare(a: RegExpExecArray, b: RegExpExecArray): number {
  for (let i = 1; i <= 3; i++) {
    const d = Number(a[i]) - Number(b[i]);
    if (d !== 0) return Math.sign(d);
  }
  if (a[4] && !b[4]) return -1;
  if (!a[4] && b[4]) return 1;
  return 0;
}

export function isOutdatedSdk(sdkVersion: string): boolean {
  const colon = sdkVersion.lastIndexOf(':');
  if (colon < 0) return false;
  const minimum = MINIMUM_VERSIONS[sdkVersion.slice(0, colon)];
  const version = SEMVER.exec(sdkVersion.slice(colon + 1).trim());
  if (!minimum || !version) return false;
  return compare(version, SEMVER.exec(minimum) as RegExpExecArray) < 0;
}

/** Strategies Unleash no longer defines but never reports as missing. */
export const LEGACY_STRATEGIES = new Set([
  'gradualRolloutRandom',
  'gradualRolloutSessionId',
  'gradualRolloutUserId',
  'userWithId',
]);
