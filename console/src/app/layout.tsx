import { useMutation } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorView } from './error-view';
import { useMemberships } from './home';
import { useResetSession, useSession } from './session';

/**
 * The frame of every signed-in page: a skip link, the main navigation and the account. A session working in an
 * organization offers no personal pages; an account that belongs to an organization sees personal search as
 * unavailable, with why (rule 1: its research runs in the organization).
 */
export function Layout() {
  const session = useSession();
  const reset = useResetSession();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v2/auth/logout')),
    onSettled: reset,
  });
  const personal = session.organization_id === null;
  const member = (useMemberships().data?.organizations.length ?? 0) > 0;
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
                  {member ? (
                    <span className="unavailable" aria-disabled="true" data-reason="organization_member">
                      Search
                      <span className="visually-hidden">
                        {' '}
                        (unavailable: your research runs in your organization)
                      </span>
                    </span>
                  ) : (
                    <NavLink to="/search">Search</NavLink>
                  )}
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
