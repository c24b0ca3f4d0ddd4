/**
 * masscan output as masscan 1.3 prints it (out-json.c, out-text.c), for the masscan format's tests: there is no
 * masscan sample in ../shared/data.
 */

/** masscan 1.3 `-oJ` with `--banners`: a comma line before each object after the first. */
export const MASSCAN_JSON = [
  '[',
  '{   "ip": "192.0.2.10",   "timestamp": "1700000000", "ports": [ {"port": 22, "proto": "tcp", "status": "open", "reason": "syn-ack", "ttl": 54} ] }',
  ',',
  '{   "ip": "192.0.2.10",   "timestamp": "1700000000", "ports": [ {"port": 22, "proto": "tcp", "service": {"name": "ssh", "banner": "SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6"} } ] }',
  ',',
  '{   "ip": "198.51.100.7",   "timestamp": "1700000042", "ports": [ {"port": 80, "proto": "tcp", "service": {"name": "http", "banner": "HTTP/1.1 301 Moved Permanently\\u000d\\u000aServer: Apache/2.4.49 (Unix)\\u000d\\u000aX-Powered-By: PHP/7.4.3\\u000d\\u000aLocation: https://example.com/\\u000d\\u000a\\u000d\\u000a"} } ] }',
  ',',
  '{   "ip": "198.51.100.7",   "timestamp": "1700000042", "ports": [ {"port": 80, "proto": "tcp", "service": {"name": "title", "banner": "301 Moved Permanently"} } ] }',
  ',',
  '{   "ip": "2001:db8:0:0::5",   "timestamp": "1700000100", "ports": [ {"port": 25, "proto": "tcp", "service": {"name": "smtp", "banner": "220 mail.example.com ESMTP Postfix (Ubuntu)"} } ] }',
  ',',
  '{   "ip": "203.0.113.9",   "timestamp": "1700000200", "ports": [ {"port": 53, "proto": "udp", "status": "open", "reason": "none", "ttl": 60} ] }',
  ',',
  '{   "ip": "203.0.113.9",   "timestamp": "1700000200", "ports": [ {"port": 443, "proto": "tcp", "status": "closed", "reason": "rst-ack", "ttl": 60} ] }',
  ']',
];

/** masscan `-oL` with banners (non-printable bytes as \xXX). */
export const MASSCAN_LIST = [
  '#masscan',
  'open tcp 21 192.0.2.20 1700000300',
  'banner tcp 21 192.0.2.20 1700000300 ftp 220 (vsFTPd 3.0.3)\\x0d\\x0a',
  'open tcp 8080 192.0.2.21 1700000301',
  'banner tcp 8080 192.0.2.21 1700000301 http.server nginx/1.18.0',
  'banner tcp 8080 192.0.2.21 1700000301 http HTTP/1.1 200 OK\\x0d\\x0aServer: nginx/1.18.0\\x0d\\x0a\\x0d\\x0a',
  'open icmp 0 192.0.2.22 1700000302',
  '# end',
];
