import { Alert, Anchor, Button, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { get } from './api';

export interface Banner {
  id: number;
  enabled: boolean;
  message: string;
  variant: 'info' | 'warning' | 'error' | 'success';
  sticky: boolean;
  link: string | null;
  linkText: string | null;
  dialogTitle: string | null;
  dialog: string | null;
}

export const BANNERS_KEY = ['banners'] as const;

const COLOR = { info: 'blue', warning: 'yellow', error: 'red', success: 'green' } as const;

/** The instance banners Admins enabled (`GET /api/admin/banners`), above every page. */
export function Banners() {
  const banners = useQuery({
    queryKey: BANNERS_KEY,
    queryFn: () => get<{ banners: Banner[] }>('api/admin/banners'),
    staleTime: 60_000,
  });
  const shown = (banners.data?.banners ?? []).filter((b) => b.enabled);
  if (shown.length === 0) return null;
  return (
    <Stack gap="xs" mb="md" aria-label="Banners">
      {shown.map((b) => (
        <BannerLine key={b.id} banner={b} />
      ))}
    </Stack>
  );
}

function BannerLine({ banner }: { banner: Banner }) {
  const [open, setOpen] = useState(false);
  const text = banner.linkText || 'More';
  return (
    <Alert
      color={COLOR[banner.variant]}
      variant="light"
      role="status"
      style={banner.sticky ? { position: 'sticky', top: 0, zIndex: 10 } : undefined}
    >
      <Text size="sm" c="var(--mantine-color-text)">
        {banner.message}{' '}
        {banner.link === 'dialog' ? (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen(true)}>
            {text}
          </Button>
        ) : (
          banner.link && (
            <Anchor
              href={banner.link}
              size="sm"
              target={banner.link.startsWith('/') ? undefined : '_blank'}
              rel="noreferrer"
            >
              {text}
            </Anchor>
          )
        )}
      </Text>
      {open && (
        <Modal
          opened
          onClose={() => setOpen(false)}
          title={banner.dialogTitle || text}
          closeButtonProps={{ 'aria-label': 'Close' }}
        >
          <Text style={{ whiteSpace: 'pre-wrap' }}>{banner.dialog}</Text>
        </Modal>
      )}
    </Alert>
  );
}
