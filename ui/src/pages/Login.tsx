import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { post } from '../api';
import { meKey, useMe } from '../session';

export function LoginPage() {
  const me = useMe();
  const client = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from ?? '/projects';
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => post('auth/simple/login', { username, password }),
    // The form shows a failed sign-in itself; a toast too would outlive the next, successful one.
    meta: { toast: false },
    onSuccess: async () => {
      // Toasts raised before signing in (a session that ended, say) do not concern the new session.
      notifications.clean();
      await client.invalidateQueries({ queryKey: meKey });
      navigate(from, { replace: true });
    },
  });
  if (me.data) return <Navigate to={from} replace />;
  return (
    <Center mih="100vh" component="main">
      <Paper withBorder p="xl" w={360} shadow="sm">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            login.mutate();
          }}
        >
          <Stack>
            <Title order={1} size="h3">
              Sign in to Flagship
            </Title>
            {login.isError && (
              <Alert color="red" role="alert">
                {login.error.message}
              </Alert>
            )}
            <TextInput
              label="Username or email"
              autoComplete="username"
              required
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <Button type="submit" loading={login.isPending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
