/** Placeholder: the organizations list and creation, built by the organization team work. */
export default function OrganizationsHome() {
  return <h1>Organizations</h1>;
}
