import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './harness.js';
import { slowUpload } from './http.js';

/**
 * Issue 44: a body refused while it is still arriving (larger than BODY_LIMIT) must not cost the
 * client its answer. A client that sends its whole body before reading (the answer waits in the
 * kernel) got EPIPE and no 413 when the service closed the connection at once; it now gets the
 * 413 in JSON, then the connection closes.
 */
describe('refused uploads are answered to the end of the upload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  const MiB = 1024 * 1024;
  const tooLarge = {
    name: 'PayloadTooLargeError',
    message: 'The request body is larger than the allowed maximum.',
  };

  it('a password of 4 MiB sent slowly to the login gets the 413', async () => {
    const head = 'POST /auth/simple/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json';
    const answer = await slowUpload(t.app, head, { total: 4 * MiB });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toMatchObject(tooLarge);
  });

  it('a 6 MiB flag sent chunked (no Content-Length) gets the 413', async () => {
    const head = `POST /api/admin/projects/default/features HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: ${ADMIN_TOKEN}`;
    const answer = await slowUpload(t.app, head, { total: 6 * MiB, chunked: true });
    expect(answer.error).toBeUndefined();
    expect(answer.sent).toBe(6 * MiB);
    expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toMatchObject(tooLarge);
  });
});
