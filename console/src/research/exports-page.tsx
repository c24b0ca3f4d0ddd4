import { useState } from 'react';
import { ExportProgress } from './exports/export-progress';
import { ExportsList } from './exports/exports-list';
import { NewExport } from './exports/new-export';
import './exports/exports.css';

/**
 * Exports in the browser (issue 19, ADR 115): estimate for free, start, follow the progress, download; the list
 * with cancel, delete and delete all. Everything goes through the session twins under /api/v2/data/exports.
 */
export default function ExportsPage() {
  const [started, setStarted] = useState<string | null>(null);
  return (
    <>
      <h1>Exports</h1>
      <p className="muted">
        An export turns a search into a file (JSON, CSV or text) at 1 credit per 100 rows written. The
        estimate is free.
      </p>
      <div className="exports-layout">
        <NewExport onStarted={setStarted} />
        {started ? <ExportProgress key={started} exportId={started} /> : null}
      </div>
      <ExportsList />
    </>
  );
}
