import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './styles.css';
import {
  type CSSVariablesResolver,
  createTheme,
  localStorageColorSchemeManager,
  MantineProvider,
  Notification,
  Switch,
} from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { notifyError } from './api';
import { router } from './router';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: false } },
  // Every failed write is shown with the server's message; pages add field-level handling. A
  // mutation with `meta: { toast: false }` shows its error itself (the login form, inline).
  mutationCache: new MutationCache({
    onError: (error, _variables, _result, mutation) => {
      if (mutation.meta?.toast !== false) notifyError(error);
    },
  }),
});

// autoContrast and shade-8/9 colours keep text on badges and buttons at WCAG AA contrast.
const theme = createTheme({
  autoContrast: true,
  // People who ask their system for less motion get no transitions (notifications, modals).
  respectReducedMotion: true,
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 7 },
  components: {
    // The close button gets a name (axe: button-name); the text under a title is gray-6 (3.3:1).
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      styles: { description: { color: 'var(--mantine-color-dimmed)' } },
    }),
    // The input gets the track's box, above it (styles.css): a click on the switch lands on it.
    Switch: Switch.extend({ classNames: { input: 'switch-input' } }),
  },
});

// Mantine's dimmed text is 3.3:1 on white and 4.0:1 on the dark body, its field-error red 3.3:1
// on white; these meet WCAG AA (4.5:1).
const resolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7]!, '--mantine-color-error': t.colors.red[9]! },
  dark: { '--mantine-color-dimmed': t.colors.dark[1]! },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      cssVariablesResolver={resolver}
      defaultColorScheme="light"
      colorSchemeManager={localStorageColorSchemeManager({ key: 'flagship-color-scheme' })}
    >
      {/* Top right, three at most: at the bottom they covered the Save buttons of tall dialogs. */}
      <Notifications position="top-right" limit={3} />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
