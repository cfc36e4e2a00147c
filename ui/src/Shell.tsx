import {
  ActionIcon,
  AppShell,
  Button,
  Group,
  NavLink,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { Banners } from './Banners';
import { ErrorState, Loading } from './components';
import { Palette } from './Palette';
import { allows, meKey, useMe } from './session';

/** Pages in the navigation; `permission`: shown only to users who hold it (the API refuses the rest). */
export const NAV: { to: string; label: string; permission?: string }[] = [
  { to: '/', label: 'Home' },
  { to: '/projects', label: 'Projects' },
  { to: '/segments', label: 'Segments' },
  { to: '/release-templates', label: 'Release templates' },
  { to: '/context', label: 'Context fields' },
  { to: '/playground', label: 'Playground' },
  { to: '/events', label: 'Event log' },
  { to: '/archive', label: 'Archive' },
  { to: '/applications', label: 'Applications' },
  { to: '/admin/api-tokens', label: 'API tokens', permission: 'READ_API_TOKEN' },
  { to: '/admin/users', label: 'Users', permission: 'ADMIN' },
  { to: '/admin/groups', label: 'Groups', permission: 'ADMIN' },
  { to: '/admin/roles', label: 'Roles', permission: 'ADMIN' },
  { to: '/admin/invite-link', label: 'Invite link', permission: 'ADMIN' },
  { to: '/admin/import-export', label: 'Import / export', permission: 'ADMIN' },
  { to: '/admin/banners', label: 'Banners', permission: 'UPDATE_INSTANCE_BANNERS' },
  { to: '/admin/signals', label: 'Signals', permission: 'ADMIN' },
];

/** The signed-in frame: header (dark mode, sign out) and the left navigation. */
export function Shell() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading />;
  if (me.isError) return <ErrorState error={me.error} />;
  if (!me.data) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  const grants = me.data.permissions;
  const who = me.data.user.name || me.data.user.username || me.data.user.email || 'signed in';
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 'xs' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={2} size="h4">
            Flagship
          </Title>
          <Group gap="sm">
            <Text size="sm" c="dimmed">
              {who}
            </Text>
            <Palette />
            <ColorSchemeToggle />
            <SignOut />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        {NAV.filter((item) => !item.permission || allows(grants, item.permission)).map((item) => (
          <NavLink
            key={item.to}
            component={Link}
            to={item.to}
            label={item.label}
            // filled: white on indigo-8 (5.8:1); the light variant's hover tint falls to 4.1:1
            variant="filled"
            active={item.to === '/' ? location.pathname === '/' : location.pathname.startsWith(item.to)}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Banners />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const dark = scheme === 'dark';
  return (
    <ActionIcon
      variant="default"
      size="lg"
      aria-label={dark ? 'Switch to light mode' : 'Switch to dark mode'}
      onClick={() => setColorScheme(dark ? 'light' : 'dark')}
    >
      <span aria-hidden="true">{dark ? '☀' : '☾'}</span>
    </ActionIcon>
  );
}

function SignOut() {
  const client = useQueryClient();
  const navigate = useNavigate();
  return (
    <Button
      variant="default"
      size="xs"
      onClick={async () => {
        await fetch('logout', { method: 'POST', credentials: 'same-origin', redirect: 'manual' });
        client.setQueryData(meKey, null);
        client.removeQueries({ predicate: (q) => q.queryKey[0] !== meKey[0] });
        navigate('/login');
      }}
    >
      Sign out
    </Button>
  );
}
