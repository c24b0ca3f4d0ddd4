import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportState } from '../src/research/exports/export-progress';
import type { ExportJob } from '../src/research/exports/export-types';

afterEach(cleanup);

const JOB: ExportJob = {
  id: '7d1f6c1e-0000-4000-8000-000000000001',
  status: 'processing',
  search_type: 'hosts',
  raw_query: 'port:443',
  time_frame: 'all_time',
  format: 'csv',
  results_count: 120,
  credits_consumed: 2,
  file_size_bytes: null,
  original_size_bytes: null,
  estimated_count: 300,
  was_truncated: false,
  created_at: '2026-11-28T10:00:00.000Z',
  expires_at: null,
  file_available: false,
};

describe('ExportState', () => {
  it('shows the progress the service reports, without a file while running', () => {
    render(<ExportState job={JOB} />);
    expect(screen.getByTestId('export-rows').textContent).toBe('120 of 300 rows · 2 credits');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuetext')).toBe('120 of 300 rows');
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('a truncated export says why, and stays downloadable from the session route', () => {
    render(
      <ExportState
        job={{
          ...JOB,
          status: 'completed',
          results_count: 200,
          was_truncated: true,
          truncation_reason: 'The credit balance covered 200 of 300 matching rows',
          file_available: true,
          original_size_bytes: 4096,
          expires_at: '2026-12-01T10:00:00.000Z',
        }}
      />,
    );
    expect(screen.getByTestId('export-truncated').textContent).toContain('covered 200 of 300');
    const link = screen.getByRole('link', { name: 'Download the CSV file' });
    expect(link.getAttribute('href')).toBe(`/api/v2/data/exports/${JOB.id}/download`);
  });

  it('a failed export shows its reason; a completed one whose file expired says so', () => {
    const { rerender } = render(
      <ExportState job={{ ...JOB, status: 'failed', failure_reason: 'the index did not answer' }} />,
    );
    expect(screen.getByRole('alert').textContent).toBe('The export failed: the index did not answer');
    rerender(
      <ExportState job={{ ...JOB, status: 'completed', results_count: 300, file_available: false }} />,
    );
    expect(screen.getByText('The file expired: run the export again.')).toBeTruthy();
  });
});
