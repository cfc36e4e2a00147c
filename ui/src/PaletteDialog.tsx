import { Box, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { enc, get } from './api';
import { NAV } from './Shell';
import { allows, useMe } from './session';

interface Item {
  id: string;
  group: 'Pages' | 'Flags';
  label: string;
  detail?: string;
  to: string;
}

/** Pages and flags matching the typed text; arrows move, Enter opens, Escape closes. */
export default function PaletteDialog({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const grants = useMe().data?.permissions ?? [];
  const [text, setText] = useState('');
  const [query] = useDebouncedValue(text.trim(), 150);
  const [active, setActive] = useState(0);
  const flags = useQuery({
    queryKey: ['palette-flags', query],
    queryFn: () =>
      get<{ features: { name: string; project: string }[] }>(
        `api/admin/search/features?query=${enc(query)}&limit=10`,
      ),
    enabled: query.length > 0,
  });
  const needle = text.trim().toLowerCase();
  // Flags are listed only for the text as it stands: results of an earlier text (the debounce still
  // waiting, or the search for the new text in flight) would offer flags that do not match it.
  const settled = query === text.trim();
  const found = settled ? (flags.data?.features ?? []) : [];
  const items: Item[] = [
    // The navigation's pages, each shown to those who see it in the navigation.
    ...NAV.filter((p) => !p.permission || allows(grants, p.permission))
      .filter((p) => p.label.toLowerCase().includes(needle))
      .map(
        (p): Item => ({
          id: `palette-page-${p.to.replace(/\W/g, '-')}`,
          group: 'Pages',
          label: p.label,
          to: p.to,
        }),
      ),
    ...found.map(
      (f, i): Item => ({
        id: `palette-flag-${i}`,
        group: 'Flags',
        label: f.name,
        detail: `flag in ${f.project}`,
        to: `/projects/${enc(f.project)}/flags/${enc(f.name)}`,
      }),
    ),
  ];
  const signature = items.map((i) => i.to).join('\n');
  // A new list starts at its first entry.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the list changes, by its content
  useEffect(() => setActive(0), [signature]);
  const current = items[Math.min(active, items.length - 1)];
  const go = (item: Item | undefined) => {
    if (!item) return;
    onClose();
    navigate(item.to);
  };
  const groups = (['Pages', 'Flags'] as const)
    .map((group) => ({ group, entries: items.filter((i) => i.group === group) }))
    .filter((g) => g.entries.length > 0);
  return (
    <Modal opened onClose={onClose} title="Go to a page or flag" closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack gap="sm">
        <TextInput
          label="Search pages and flags"
          placeholder="Type a page or a flag name"
          data-autofocus
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={items.length > 0}
          aria-controls={items.length > 0 ? 'palette-results' : undefined}
          aria-activedescendant={current?.id}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              const step = e.key === 'ArrowDown' ? 1 : -1;
              if (items.length)
                setActive((a) => (Math.min(a, items.length - 1) + step + items.length) % items.length);
            } else if (e.key === 'Enter') {
              e.preventDefault();
              go(current);
            }
          }}
        />
        {items.length === 0 ? (
          <Text size="sm" c="dimmed" role="status">
            {flags.isFetching || !settled ? 'Searching…' : 'No page or flag matches.'}
          </Text>
        ) : (
          <Box id="palette-results" role="listbox" aria-label="Pages and flags">
            {groups.map(({ group, entries }) => (
              <Box key={group} role="group" aria-labelledby={`palette-group-${group}`} mb="xs">
                <Text id={`palette-group-${group}`} size="xs" fw={700} tt="uppercase" c="dimmed">
                  {group}
                </Text>
                {entries.map((item) => {
                  const selected = item === current;
                  return (
                    // Options are picked with the keyboard from the input (aria-activedescendant).
                    <Box
                      key={item.id}
                      id={item.id}
                      role="option"
                      aria-selected={selected}
                      px="sm"
                      py={6}
                      style={{
                        cursor: 'pointer',
                        borderRadius: 4,
                        borderLeft: `3px solid ${selected ? 'var(--mantine-primary-color-filled)' : 'transparent'}`,
                        background: selected ? 'var(--mantine-color-default-hover)' : undefined,
                      }}
                      onMouseEnter={() => setActive(items.indexOf(item))}
                      onClick={() => go(item)}
                    >
                      <Text size="sm" fw={selected ? 700 : 400} span>
                        {item.label}
                      </Text>
                      {item.detail && (
                        <Text size="xs" c="dimmed" span ml="xs">
                          {item.detail}
                        </Text>
                      )}
                    </Box>
                  );
                })}
              </Box>
            ))}
          </Box>
        )}
      </Stack>
    </Modal>
  );
}
