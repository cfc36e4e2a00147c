/**
 * The one rule for every URL a user gives (flag links, application URLs, webhook targets, CORS
 * origins, outgoing requests): an absolute http or https URL with a host. Nothing else is taken, so
 * a stored URL never runs script when a page opens it and never names a file or another scheme.
 */
export function webUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
}

/** Why `text` is not a webUrl, in words for an error message that shows it as `shown`. */
export const notWebUrl = (text: string, shown = text) =>
  URL.canParse(text) ? `"${shown}" is not an http or https URL.` : `"${shown}" is not a valid URL.`;
