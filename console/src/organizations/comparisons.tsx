/** Placeholder: built by the organization team work. */
export default function Comparisons({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Comparisons</h2>;
}
