import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiError, errorTitle } from './api';

export function Loading() {
  return (
    <Center p="xl">
      {/* A named status: axe refuses aria-label on a span without a role. */}
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}

/** A failed read: the error in words (its kind as a title) and the server's message. */
export function ErrorState({ error }: { error: unknown }) {
  const title = error instanceof ApiError ? errorTitle(error) : 'Could not load';
  return (
    <Alert color="red" title={title} role="alert">
      {error instanceof Error ? error.message : String(error)}
    </Alert>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" p="md">
      {children}
    </Text>
  );
}

/** Badge colours for on/off with white text at ≥4.5:1 (Mantine's green-9 is 4.36:1). */
export const ON_COLOR = '#1e6b2c';
export const OFF_COLOR = 'gray.8';
