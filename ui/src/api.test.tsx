import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, notifyError } from './api';
import { ErrorState } from './components';
import { MutationError } from './dialogs';

function renderToasts() {
  render(
    <MantineProvider env="test">
      <Notifications />
    </MantineProvider>,
  );
}

afterEach(() => act(() => notifications.clean()));

describe('error toasts', () => {
  it.each([
    ['NoAccessError', 403, 'Not allowed'],
    ['NameExistsError', 409, 'Name already taken'],
    ['PreconditionFailedError', 412, 'Changed by someone else'],
    ['ValidationError', 400, 'Invalid input'],
    ['SomethingNewError', 422, 'Request refused'],
    ['SomethingNewError', 502, 'Server error'],
  ])('titles a %s (%i) in words: %s', async (name, status, title) => {
    renderToasts();
    act(() => notifyError(new ApiError(status, { name, message: 'The server says why.' })));
    expect(await screen.findByText(title)).toBeTruthy();
    expect(screen.getByText('The server says why.')).toBeTruthy();
    expect(screen.queryByText(name)).toBeNull();
  });

  it('titles an error that is not the API answer', async () => {
    renderToasts();
    act(() => notifyError(new TypeError('Failed to fetch')));
    expect(await screen.findByText('Something went wrong')).toBeTruthy();
  });
});

describe('error alerts', () => {
  it('title a failed read and a failed write in words too', () => {
    render(
      <MantineProvider env="test">
        <ErrorState error={new ApiError(404, { name: 'NotFoundError', message: 'No such flag.' })} />
        <MutationError error={new ApiError(409, { name: 'NameExistsError', message: 'Taken.' })} />
      </MantineProvider>,
    );
    expect(screen.getByText('Not found')).toBeTruthy();
    expect(screen.getByText('Name already taken')).toBeTruthy();
    expect(screen.queryByText(/NotFoundError|NameExistsError/)).toBeNull();
  });
});
