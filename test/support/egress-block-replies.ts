/**
 * Replies real mail hosts give a sending address they refuse (CONTRACT §13), as their operators document them
 * or as they appear in bounce reports, with the stage they come at; and replies that must not be mistaken for
 * one (they are about the mailbox, the relay or the content). `reply` is the wire form, one line per element.
 */
export interface BlockReply {
  who: string;
  stage: 'connect' | 'EHLO' | 'MAIL' | 'RCPT';
  reply: string[];
}

export const EGRESS_BLOCK_REPLIES: readonly BlockReply[] = [
  {
    who: 'Microsoft (Outlook.com, S3150)',
    stage: 'RCPT',
    reply: [
      "550 5.7.1 Unfortunately, messages from [192.0.2.10] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors.",
    ],
  },
  {
    who: 'Microsoft 365 (banned sending IP)',
    stage: 'MAIL',
    reply: [
      '550 5.7.606 Access denied, banned sending IP [192.0.2.10]. To request removal from this list please visit https://sender.office.com/ and follow the directions.',
    ],
  },
  {
    who: 'Microsoft 365 (traffic not accepted)',
    stage: 'connect',
    reply: ['550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.'],
  },
  {
    who: 'Google (no PTR)',
    stage: 'RCPT',
    reply: [
      '550-5.7.25 [192.0.2.10] The IP address sending this message does not have a',
      '550-5.7.25 PTR record setup, or the corresponding forward DNS entry does not',
      '550-5.7.25 point to the sending IP. As a policy, Gmail does not accept messages',
      '550 5.7.25 from IPs with missing PTR records. - gsmtp',
    ],
  },
  {
    who: 'Google (temporarily blocked)',
    stage: 'MAIL',
    reply: [
      '421-4.7.0 [192.0.2.10] Our system has detected an unusual rate of unsolicited',
      '421-4.7.0 mail originating from your IP address. To protect our users from spam,',
      '421 4.7.0 mail sent from your IP address has been temporarily blocked. - gsmtp',
    ],
  },
  {
    who: 'Yahoo ([BL21], Spamhaus)',
    stage: 'connect',
    reply: [
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.10, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
    ],
  },
  {
    who: 'Yahoo ([TSS09])',
    stage: 'MAIL',
    reply: [
      '553 5.7.2 [TSS09] All messages from 192.0.2.10 will be permanently deferred; Retrying will NOT succeed. See https://postmaster.yahooinc.com/error-codes',
    ],
  },
  {
    who: 'Proofpoint (IP reputation)',
    stage: 'connect',
    reply: ['554 5.7.1 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.10'],
  },
  {
    who: 'Proofpoint Essentials (dnsbl-lookup)',
    stage: 'RCPT',
    reply: ['550 5.7.1 Blocked - see https://support.proofpoint.com/dnsbl-lookup.cgi?ip=192.0.2.10'],
  },
  {
    who: 'Mimecast (IP reputation)',
    stage: 'RCPT',
    reply: ['550 Local CT IP Reputation - (reject) - https://community.mimecast.com/docs/DOC-1369#550 [cK5Y2qZpNbu0Y8Ilv9bIJg.us245]'],
  },
  {
    who: 'Mimecast (RBL)',
    stage: 'connect',
    reply: ['554 Connection rejected - Spamhaus RBL listed - https://community.mimecast.com/docs/DOC-1369#554 [AB12cd34.eu281]'],
  },
  {
    who: 'Postfix (reject_rbl_client)',
    stage: 'RCPT',
    reply: [
      '554 5.7.1 Service unavailable; Client host [192.0.2.10] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.10',
    ],
  },
  {
    who: 'Postfix (reject_unknown_reverse_client_hostname)',
    stage: 'RCPT',
    reply: ['450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.10]'],
  },
  {
    who: 'Postfix (reject_unknown_client_hostname)',
    stage: 'MAIL',
    reply: ['550 5.7.1 Client host rejected: cannot find your hostname, [192.0.2.10]'],
  },
  {
    who: 'Postfix (reject_non_fqdn_helo_hostname)',
    stage: 'RCPT',
    reply: ['504 5.5.2 <verifier>: Helo command rejected: need fully-qualified hostname'],
  },
  {
    who: 'Exim (dnslists)',
    stage: 'RCPT',
    reply: ['550 Rejected because 192.0.2.10 is in a black list at zen.spamhaus.org'],
  },
  {
    who: 'Exim (reverse DNS)',
    stage: 'EHLO',
    reply: ['550-Reverse DNS lookup failed for host 192.0.2.10.', '550 Go away'],
  },
  {
    who: 'Exim (cPanel RBL)',
    stage: 'RCPT',
    reply: ['550 JunkMail rejected - client.example [192.0.2.10]:41234 is in an RBL: Blocked - see https://www.spamcop.net/bl.shtml?192.0.2.10'],
  },
  {
    who: 'Barracuda',
    stage: 'connect',
    reply: ['554 Service unavailable; Client host [192.0.2.10] blocked using Barracuda Reputation; http://www.barracudanetworks.com/reputation/?pr=1&ip=192.0.2.10'],
  },
  {
    who: 'AT&T',
    stage: 'MAIL',
    reply: ['553 5.3.0 flph829 DNSBL:RBL 521< 192.0.2.10 >_is_blocked.For assistance forward this error to abuse_rbl@abuse-att.net'],
  },
  {
    who: 'Comcast',
    stage: 'connect',
    reply: ['554 resimta-po-01v.sys.comcast.net comcast 192.0.2.10 found on one or more DNSBLs, see http://postmaster.comcast.net/smtp-error-codes.php#BL000001'],
  },
];

/** Replies about the mailbox, the relay, the content or the rate: none of them blames the egress. */
export const NOT_EGRESS_BLOCKS: readonly BlockReply[] = [
  { who: 'Postfix (user unknown)', stage: 'RCPT', reply: ['550 5.1.1 <nobody@example.test>: Recipient address rejected: User unknown in local recipient table'] },
  { who: 'Google (no such account)', stage: 'RCPT', reply: ['550-5.1.1 The email account that you tried to reach does not exist. Please try', '550 5.1.1 double-checking the recipient\'s email address for typos. - gsmtp'] },
  { who: 'Google (disabled)', stage: 'RCPT', reply: ['550 5.2.1 The email account that you tried to reach is disabled. - gsmtp'] },
  { who: 'Microsoft (recipient not found)', stage: 'RCPT', reply: ['550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302)'] },
  { who: 'Microsoft EOP (directory-based edge blocking)', stage: 'RCPT', reply: ['550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [AM0PR01MB1234.eurprd01.prod.exchangelabs.com]'] },
  { who: 'Domino (user not listed)', stage: 'RCPT', reply: ['550 5.0.0 nobody@example.test... User not listed in public Name & Address Book'] },
  { who: 'Postfix (relay)', stage: 'RCPT', reply: ['554 5.7.1 <nobody@elsewhere.test>: Relay access denied'] },
  { who: 'Mimecast (invalid recipient)', stage: 'RCPT', reply: ['550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [x9.us1]'] },
  { who: 'Yahoo (no mailbox)', stage: 'RCPT', reply: ['552 1 Requested mail action aborted, mailbox not found'] },
  { who: 'postgrey (greylisted)', stage: 'RCPT', reply: ['450 4.2.0 <user@example.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.test.html'] },
  { who: 'Yahoo ([TSS04] deferral: a rate, not a block)', stage: 'MAIL', reply: ['421 4.7.0 [TSS04] Messages from 192.0.2.10 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes'] },
  { who: 'Over quota', stage: 'RCPT', reply: ['452 4.2.2 The email account that you tried to reach is over quota. - gsmtp'] },
];
