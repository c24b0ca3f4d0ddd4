/** Placeholder: built by the organization team work. */
export default function Cases({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Cases</h2>;
}
