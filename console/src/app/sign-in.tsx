import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from './error-view';
import { useResetSession } from './session';

/** Email and password sign-in (POST /api/v2/auth/login sets the __Host-ps session and __Host-pc CSRF cookies). */
export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const reset = useResetSession();
  const navigate = useNavigate();
  const signIn = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v2/auth/login', { body: { email, password } })),
    onSuccess: async () => {
      await reset();
      // Signing in again from /sign-in (after a CSRF refusal) goes home; elsewhere the page asked for stays.
      if (window.location.pathname === '/sign-in') navigate('/', { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p className="muted">Search previously collected internet observations. Nothing is scanned.</p>
      <form onSubmit={submit}>
        <label>
          Email
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorView error={signIn.error} title="Sign-in refused" />
      </form>
    </main>
  );
}
