import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/client';
import { ActionButton, FieldProblems, newRunKey, Refusal } from '../src/scopes/scope-shared';

afterEach(cleanup);

const forbidden = new ApiError(403, 'forbidden', 'the analyst role cannot do this', undefined, 'req-1');

describe('scopes: actions the service refuses for the role', () => {
  it('an action offered until the service refuses it, then unavailable (aria-disabled) and inert', () => {
    const onClick = vi.fn();
    const { rerender } = render(<ActionButton label="Archive scope" refusal={null} onClick={onClick} />);
    fireEvent.click(screen.getByRole('button', { name: 'Archive scope' }));
    expect(onClick).toHaveBeenCalledTimes(1);

    rerender(<ActionButton label="Archive scope" refusal={forbidden} onClick={onClick} />);
    const button = screen.getByRole('button', { name: 'Archive scope' });
    expect(button.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(button);
    expect(onClick).toHaveBeenCalledTimes(1);
  });

  it('a role refusal reads as unavailable with its reason and code; another refusal as an error with its fields', () => {
    const { container, rerender } = render(<Refusal what="Archiving the scope" error={forbidden} />);
    const unavailable = container.querySelector('.unavailable');
    expect(unavailable?.getAttribute('data-code')).toBe('forbidden');
    expect(unavailable?.textContent).toContain(
      'Archiving the scope is unavailable: the analyst role cannot do this',
    );

    const invalid = new ApiError(
      422,
      'invalid_input',
      'according_to is required',
      {
        fields: [{ field: 'according_to', problems: ['is required when the conclusion is closed'] }],
      },
      undefined,
    );
    rerender(<Refusal what="Recording a decision" error={invalid} />);
    expect(screen.getByRole('alert').getAttribute('data-code')).toBe('invalid_input');
    expect(container.querySelector('.field-problems')?.textContent).toBe(
      'according_to: is required when the conclusion is closed',
    );
  });

  it('names no field when the refusal carries none', () => {
    const { container } = render(<FieldProblems error={forbidden} />);
    expect(container.textContent).toBe('');
  });
});

describe('scopes: a stable run key made in the browser', () => {
  it('is 32 hexadecimal characters (within the 16 to 64 the service asks) and differs each time', () => {
    const keys = new Set(Array.from({ length: 20 }, newRunKey));
    expect(keys.size).toBe(20);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
  });
});
