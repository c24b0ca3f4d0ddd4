/** Placeholder: built by the organization team work. */
export default function Members({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Members</h2>;
}
