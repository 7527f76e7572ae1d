import type { LeadInputField } from './lead.ts';

/** Accepted header names of a lead CSV (snake_case, camelCase, spaced and common export aliases). */
export const LEAD_CSV_ALIASES: Record<LeadInputField, readonly string[]> = {
  firstName: ['firstName', 'first_name', 'first name', 'given_name', 'firstname'],
  lastName: ['lastName', 'last_name', 'last name', 'surname', 'family_name'],
  title: ['title', 'job_title', 'position', 'role', 'job title'],
  company: ['company', 'company_name', 'organization', 'organisation', 'account'],
  companyDomain: ['companyDomain', 'company_domain', 'domain', 'website', 'company_website'],
  email: ['email', 'email_address', 'e-mail', 'mail'],
  networkUrl: ['networkUrl', 'network_url', 'linkedin', 'linkedin_url', 'linkedin_profile', 'profile_url', 'person_linkedin_url'],
  workEmail: ['workEmail', 'work_email', 'business_email'],
  personalEmail: ['personalEmail', 'personal_email', 'private_email'],
  phone: ['phone', 'phone_number', 'mobile', 'mobile_phone', 'telephone', 'tel'],
};
