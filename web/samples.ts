// The repository's sample uploads (examples/), bundled with the dashboard so the links work offline.
import companies from '../examples/companies.csv?url';
import domains from '../examples/domains.csv?url';
import leads from '../examples/leads.csv?url';
import names from '../examples/names.csv?url';

export const SAMPLES = { companies, domains, leads, names };
