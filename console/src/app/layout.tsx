import { useMutation } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from './error-view';
import { useResetSession, useSession } from './session';

/**
 * The frame of every signed-in page: a skip link, the main navigation and the account. An account working in an
 * organization (the session is restricted to it) has no personal research: those links are not offered.
 */
export function Layout() {
  const session = useSession();
  const reset = useResetSession();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v2/auth/logout')),
    onSettled: reset,
  });
  const personal = session.organization_id === null;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/" className="brand">
          Exposure research
        </NavLink>
        <nav aria-label="Main">
          <ul>
            {personal ? (
              <>
                <li>
                  <NavLink to="/search">Search</NavLink>
                </li>
                <li>
                  <NavLink to="/exports">Exports</NavLink>
                </li>
                <li>
                  <NavLink to="/credits">Credits</NavLink>
                </li>
              </>
            ) : null}
            <li>
              <NavLink to={personal ? '/organizations' : `/organizations/${session.organization_id}`}>
                Organization
              </NavLink>
            </li>
            <li>
              <NavLink to="/operator">Operator</NavLink>
            </li>
          </ul>
        </nav>
        <div className="account">
          <span className="muted">{session.email}</span>
          <button type="button" className="link" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </div>
      </header>
      <ErrorView error={signOut.error} title="Sign-out failed" />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
