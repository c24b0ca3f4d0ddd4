/** Placeholder: built by the organization team work. */
export default function Workspace({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Workspace</h2>;
}
