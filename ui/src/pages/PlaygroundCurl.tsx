import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { notifyDone } from '../api';
import { curlCommand } from '../curl';

/** The playground's API path, relative to the page's <base href> like every request the UI makes. */
export const ADVANCED_PATH = 'api/admin/playground/advanced';

/** Where the page sends its request, absolute (service origin and base path included). */
export const advancedUrl = () => new URL(ADVANCED_PATH, document.baseURI).href;

/**
 * "Copy as curl": the request the page would make, as a shell command with a token placeholder.
 * When the clipboard is refused (permissions, an insecure origin), a dialog shows the command in a
 * read-only field to copy by hand. `body` returns the request body, or throws when the form is invalid.
 */
export function CopyAsCurl({ body, onError }: { body: () => unknown; onError?: (error: unknown) => void }) {
  const [fallback, setFallback] = useState<string | null>(null);
  const copy = async () => {
    let command: string;
    try {
      command = curlCommand(advancedUrl(), body());
    } catch (error) {
      onError?.(error);
      return;
    }
    try {
      if (!navigator.clipboard) throw new Error('No clipboard');
      await navigator.clipboard.writeText(command);
      notifyDone('The curl command was copied.');
    } catch {
      setFallback(command);
    }
  };
  return (
    <>
      <Button variant="default" onClick={() => void copy()}>
        Copy as curl
      </Button>
      <Modal
        opened={fallback !== null}
        onClose={() => setFallback(null)}
        title="Copy as curl"
        size="lg"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <Text size="sm">
            The clipboard is not available here: select the command and copy it. Replace
            &lt;YOUR_API_TOKEN&gt; with an admin API token.
          </Text>
          <Textarea
            label="curl command"
            value={fallback ?? ''}
            readOnly
            rows={6}
            data-autofocus
            onFocus={(event) => event.currentTarget.select()}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <Group justify="end">
            <Button variant="default" onClick={() => setFallback(null)}>
              Done
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
