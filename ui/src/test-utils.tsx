import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { keys } from './queries';
import type { ContextField } from './types';

/** Renders with Mantine and a query cache already holding the context fields (no network). */
export function renderWithContext(ui: ReactNode, contextFields: ContextField[] = []) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
  client.setQueryData(keys.context, contextFields);
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={client}>{ui}</QueryClientProvider>
    </MantineProvider>,
  );
}
