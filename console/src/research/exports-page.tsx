/** Placeholder: built by the researcher pages' work. */
export default function ExportsPage() {
  return <h1>Exports</h1>;
}
