/** A POSIX shell word for `value`: single-quoted, each `'` written as `'"'"'`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/**
 * The curl command that sends `body` as JSON to `url` with a POST. The API token is a placeholder
 * to fill in: the command never carries the browser's session cookie.
 */
export function curlCommand(url: string, body: unknown): string {
  return [
    'curl -X POST',
    shellQuote(url),
    '-H',
    shellQuote('Content-Type: application/json'),
    '-H',
    shellQuote('Authorization: <YOUR_API_TOKEN>'),
    '--data',
    shellQuote(JSON.stringify(body)),
  ].join(' ');
}
