#!/bin/sh
# pi-thread.sh INBOX MESSAGE-ID: public-inbox's own reader on an indexed v2
# inbox (run pi-check.sh first): prints how many mails public-inbox puts
# in the thread of MESSAGE-ID, then their subjects, one a line.  HOME and
# the public-inbox configuration are private (a temporary directory).
# Exit 77 with "skip: ..." when public-inbox's Perl modules are absent.
set -eu
inbox=${1:?usage: pi-thread.sh INBOX MESSAGE-ID}
mid=${2:?usage: pi-thread.sh INBOX MESSAGE-ID}
if ! perl -MPublicInbox::Inbox -e 1 2>/dev/null; then
	echo "skip: public-inbox is not installed"
	exit 77
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
HOME=$home PI_CONFIG=$home/config XDG_CONFIG_HOME=$home XDG_DATA_HOME=$home XDG_CACHE_HOME=$home \
perl -MPublicInbox::Inbox -e '
my ($dir, $mid) = @ARGV;
my $ibx = PublicInbox::Inbox->new({ inboxdir => $dir, name => "test", address => ["test\@example.org"] });
my $over = $ibx->over or die "$dir: not indexed\n";
my $msgs = $over->get_thread($mid) || [];
print scalar(@$msgs), "\n";
print "$_->{subject}\n" for @$msgs;
' "$inbox" "$mid"
