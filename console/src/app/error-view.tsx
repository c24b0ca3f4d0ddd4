import { Link } from 'react-router';
import { ApiError } from '../api/client';

/** An API refusal shown with its message and its stable code (and the request id, for a support ticket). */
export function ErrorView({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div role="alert" className="error" data-code={api?.code}>
      {title ? <strong>{title}: </strong> : null}
      <span>{error instanceof Error ? error.message : String(error)}</span>
      {api ? (
        <>
          {' '}
          <code className="error-code">{api.code}</code>
          {api.requestId ? <small className="request-id"> request {api.requestId}</small> : null}
        </>
      ) : null}
      {api?.code === 'csrf_failed' ? (
        // The page's CSRF token no longer matches the session (another tab signed in again, or the cookie was
        // changed): nothing was done; signing in again issues a matching pair.
        <p className="error-hint">
          Nothing was changed: this page&apos;s security token does not match your session.{' '}
          <Link to="/sign-in">Sign in again</Link> to continue.
        </p>
      ) : null}
    </div>
  );
}
