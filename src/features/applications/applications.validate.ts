import { invalidField } from '../../platform/http/errors.js';
import { webUrl } from '../../platform/web-url.js';

/**
 * An application's `url` is shown as a link (the UI opens it in a new tab), so only an absolute
 * http or https URL is taken; anything else (`javascript:`, `data:`, no scheme) is a 400. The empty
 * string clears the link, as the UI's edit form sends it for an empty field.
 */
export function applicationUrl(raw: string): string {
  if (raw === '') return raw;
  if (!webUrl(raw)) {
    throw invalidField('/body/url', 'url must be an absolute http or https URL (or empty to clear it).');
  }
  return raw;
}
