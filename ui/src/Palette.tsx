import { Button, Kbd } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { lazy, Suspense, useState } from 'react';

// The dialog loads on first use: the shell's initial download stays small.
const PaletteDialog = lazy(() => import('./PaletteDialog'));

const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The command palette: a header button, and Ctrl+K / Cmd+K anywhere (also inside inputs). */
export function Palette() {
  const [opened, setOpened] = useState(false);
  useHotkeys([['mod+K', () => setOpened((o) => !o)]], []);
  return (
    <>
      <Button
        variant="default"
        size="xs"
        onClick={() => setOpened(true)}
        aria-keyshortcuts={mac ? 'Meta+K' : 'Control+K'}
        rightSection={<Kbd size="xs">{mac ? '⌘ K' : 'Ctrl K'}</Kbd>}
      >
        Go to
      </Button>
      {opened && (
        <Suspense fallback={null}>
          <PaletteDialog onClose={() => setOpened(false)} />
        </Suspense>
      )}
    </>
  );
}
