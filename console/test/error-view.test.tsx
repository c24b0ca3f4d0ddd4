import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import { ErrorView } from '../src/app/error-view';

afterEach(cleanup);

describe('ErrorView', () => {
  it("shows a refusal's message, its stable code and the request id", () => {
    render(
      <ErrorView
        error={new ApiError(402, 'insufficient_credits', 'not enough credits', undefined, 'req-1')}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.getAttribute('data-code')).toBe('insufficient_credits');
    expect(alert.textContent).toContain('not enough credits');
    expect(alert.textContent).toContain('insufficient_credits');
    expect(alert.textContent).toContain('req-1');
  });

  it('shows nothing without an error', () => {
    const { container } = render(<ErrorView error={null} />);
    expect(container.textContent).toBe('');
  });
});
