// Whether a file's own sync also makes its new directory entry durable.
//
// POSIX asks for an fsync of the directory after creating a file in it. On
// the Linux file systems below, fsync/fdatasync of a file created under its
// final name already persists that name, by design of the file system:
//   - ext4 with a journal: the create runs in the transaction the file's
//     sync commits (the new inode's sync and datasync transaction ids are
//     the create's);
//   - ext4 without a journal: the sync of an inode flagged as a new entry
//     writes its parent directory too (ext4_sync_parent), recursively;
//   - XFS: the sync forces the log up to the inode's last change, which is
//     the create transaction that also changed the directory;
//   - btrfs: the sync logs a new inode together with its names.
// On these, LocalStore::Sync skips the directory fsync for objects it
// created in place (a renamed object keeps it: a rename changes only the
// inode's ctime, which fdatasync does not commit on a journaled ext4). On
// any other file system, or with OMNIGRAPH_DIRECTORY_FSYNC=always in the
// environment, every directory is synced as before.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace omnigraph {

// True when `fs_type` (as /proc/self/mountinfo names it) is one of the file
// systems above: "ext4", "ext3" (served by the ext4 driver), "xfs", "btrfs".
// "ext2" is false: the ext2 driver may serve it.
bool FileSyncPersistsNewNames(std::string_view fs_type);

// The file-system type of the mount of device `major`:`minor` in
// /proc/self/mountinfo text, or nullopt when no line has that device.
std::optional<std::string> MountedFileSystemType(std::string_view mountinfo, unsigned major, unsigned minor);

// Whether a file created in place under `directory` (or, when it does not
// exist yet, its nearest existing ancestor) has its name made durable by its
// own sync: FileSyncPersistsNewNames of the mount holding it; false when the
// environment sets OMNIGRAPH_DIRECTORY_FSYNC=always or the type cannot be
// determined.
bool FileSyncPersistsNewNamesUnder(const std::string& directory);

}  // namespace omnigraph
