import {
  Alert,
  Anchor,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
  useComputedColorScheme,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, enc, get, post } from '../api';
import { ErrorState, Loading } from '../components';
import { PasswordRules } from './SignupRules';

/** An error detail as the service sends it: `path` names the body field at fault. */
type Detail = { path?: string; message?: string };
type Field = 'name' | 'email' | 'username' | 'password';

/**
 * Creating an account with an invite link (`/new-user?invite=<secret>`, made by an admin under
 * Admin › Invite link). The link is checked first; the new account is a Viewer. Signing up sets no
 * session, so the person then signs in with the email (or username) and password just chosen.
 */
export default function SignupPage() {
  const secret = useSearchParams()[0].get('invite') ?? '';
  const check = useQuery({
    queryKey: ['invite', secret],
    // 200 when usable; 400, with one answer for unknown, disabled and expired links.
    queryFn: async () => {
      await get<null>(`invite/${enc(secret)}/validate`);
      return true;
    },
    enabled: secret !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  let body: ReactNode;
  if (!secret) {
    body = <InvalidLink>This address has no invite in it. Open the whole link you were sent.</InvalidLink>;
  } else if (check.isPending) {
    body = <Loading />;
  } else if (check.isError) {
    body =
      check.error instanceof ApiError && check.error.status === 400 ? (
        <InvalidLink>
          The link is unknown, disabled or expired. Ask an administrator for a new invite link.
        </InvalidLink>
      ) : (
        <ErrorState error={check.error} />
      );
  } else {
    body = <SignupForm secret={secret} />;
  }
  return (
    <Center mih="100vh" component="main" p="md">
      <Paper withBorder p="xl" w={420} shadow="sm">
        <Stack>
          <Title order={1} size="h3">
            Create your Flagship account
          </Title>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}

function InvalidLink({ children }: { children: ReactNode }) {
  return (
    <>
      <Alert color="red" title="This invite link does not work" role="alert">
        {children}
      </Alert>
      <Text size="sm">
        Already have an account?{' '}
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>
      </Text>
    </>
  );
}

// Mantine's error red (red-6) is 3.3:1 on white; red-9 meets WCAG AA for the field messages.
const LIGHT_ERROR = { '--mantine-color-error': 'var(--mantine-color-red-9)' } as React.CSSProperties;

function SignupForm({ secret }: { secret: string }) {
  const navigate = useNavigate();
  const light = useComputedColorScheme('light') === 'light';
  const [form, setForm] = useState({ name: '', email: '', username: '', password: '' });
  const signup = useMutation({
    mutationFn: () =>
      post(`invite/${enc(secret)}/signup`, {
        email: form.email.trim(),
        password: form.password,
        // Optional: an empty one is left out (the service refuses an empty username).
        ...(form.name.trim() && { name: form.name.trim() }),
        ...(form.username.trim() && { username: form.username.trim() }),
      }),
    onSuccess: () => {
      notifications.show({
        color: 'green',
        title: 'Account created',
        message: 'Sign in with your email and the password you chose.',
        autoClose: 15_000,
      });
      navigate('/login', { replace: true, state: { from: '/projects' } });
    },
  });
  // The service's details name the field (`/body/password`); those go under the field.
  const details: Detail[] = signup.error instanceof ApiError ? (signup.error.body.details ?? []) : [];
  const fieldError = (field: Field) => {
    const messages = details.filter((d) => d.path === `/body/${field}`).map((d) => d.message);
    return messages.length ? messages.join(' ') : undefined;
  };
  const field = (name: Field) => ({
    value: form[name],
    error: fieldError(name),
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      setForm((f) => ({ ...f, [name]: value }));
    },
  });
  const placed = (['name', 'email', 'username', 'password'] as const).some(
    (f) => fieldError(f) !== undefined,
  );
  return (
    <form
      style={light ? LIGHT_ERROR : undefined}
      onSubmit={(event) => {
        event.preventDefault();
        signup.mutate();
      }}
    >
      <Stack>
        <Text size="sm">
          You were invited to Flagship. The new account can read everything; an admin can give you more.
        </Text>
        {signup.isError && (
          <Alert color="red" role="alert" title="Could not create the account">
            {signup.error.message}
            {placed && ' See the marked fields.'}
          </Alert>
        )}
        <TextInput label="Name" autoComplete="name" maxLength={255} {...field('name')} />
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          {...field('email')}
        />
        <TextInput
          label="Username"
          description="Optional: another name to sign in with, without spaces."
          autoComplete="username"
          maxLength={255}
          {...field('username')}
        />
        <PasswordInput
          label="Password"
          autoComplete="new-password"
          required
          maxLength={1000}
          {...field('password')}
        />
        <PasswordRules password={form.password} />
        <Button type="submit" loading={signup.isPending}>
          Create account
        </Button>
        <Text size="sm">
          Already have an account?{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
