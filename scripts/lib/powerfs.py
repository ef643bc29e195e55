#!/usr/bin/env python3
"""powerfs: a FUSE pass-through file system that can lose power.

usage: powerfs.py BACKING MOUNTPOINT   (runs in the foreground until unmounted)

BACKING/live is what the mount shows; every operation reaches it at once, so reads, shared mmap
(SQLite's -shm) and POSIX locks (kept by the kernel: no lock callback) behave as on a disk. Beside
it the process keeps the *durable* state, which only these calls change (the POSIX model, stricter
than ext4's journal, and the reason SQLite syncs directories itself, see unixSync in os_unix.c):
  * fsync/fdatasync of a file: the file's written pages and size become durable (BACKING/store);
  * fsync of a directory: the directory's entries (names -> files and subdirectories) become
    durable; a create, rename, unlink, mkdir or rmdir is lost at a power cut until then. A file
    whose name is durable but whose data never was comes back empty; a directory never synced
    comes back empty.
Metadata other than the tree and sizes (times, owners, modes) is not modelled.

`setfattr -n user.powerfs.cut -v 1 MOUNTPOINT` (os.setxattr) is the power cut: from that call on
every operation fails with EIO and nothing more becomes durable; at unmount, BACKING/live is
rebuilt from the durable state alone. A new mount then takes what it finds as durable.
Unlinked or replaced files are moved to BACKING/grave rather than deleted, so that an inode number
is never reused within a mount (durable entries name files by inode).
"""
import ctypes, errno, os, shutil, stat, sys

from mfusepy import FUSE, FuseOSError, Operations

PAGE = 4096
CUT_XATTR = "user.powerfs.cut"
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2
libc = ctypes.CDLL(None, use_errno=True)


class PowerFS(Operations):
    use_ns = True

    def __init__(self, backing):
        self.backing = os.path.abspath(backing)
        self.live = os.path.join(self.backing, "live")
        self.store = os.path.join(self.backing, "store")
        self.grave = os.path.join(self.backing, "grave")
        self.cut = False
        self.fh_ino = {}        # open file handle -> inode
        self.dirty = {}         # inode -> set of page numbers written since its last fsync
        self.low_size = {}      # inode -> smallest size since its last fsync (truncations)
        self.graves = 0
        os.makedirs(self.live, exist_ok=True)
        for d in (self.store, self.grave):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        self.root_ino = os.lstat(self.live).st_ino
        self.tree = {}          # directory inode -> {name: (inode, is_dir)} as last synced
        self.snapshot_all(self.live)

    # -- the durable model ------------------------------------------------------------------
    def snapshot_all(self, directory):
        """At mount, everything present is durable."""
        self.snapshot_dir(directory)
        for name, (ino, is_dir) in self.tree[os.lstat(directory).st_ino].items():
            path = os.path.join(directory, name)
            if is_dir:
                self.snapshot_all(path)
            else:
                shutil.copyfile(path, self.store_path(ino))

    def snapshot_dir(self, directory):
        entries = {}
        for name in os.listdir(directory):
            st = os.lstat(os.path.join(directory, name))
            if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                entries[name] = (st.st_ino, stat.S_ISDIR(st.st_mode))
        self.tree[os.lstat(directory).st_ino] = entries

    def store_path(self, ino):
        return os.path.join(self.store, str(ino))

    def sync_file(self, fd):
        st = os.fstat(fd)
        ino = st.st_ino
        target = os.open(self.store_path(ino), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if ino in self.low_size:
                os.ftruncate(target, self.low_size.pop(ino))
            os.ftruncate(target, st.st_size)
            for page in sorted(self.dirty.pop(ino, ())):
                if page * PAGE < st.st_size:
                    os.pwrite(target, os.pread(fd, PAGE, page * PAGE), page * PAGE)
        finally:
            os.close(target)

    def restore(self):
        """Rebuilds BACKING/live from the durable state only (after a cut)."""
        rebuilt = os.path.join(self.backing, "live.rebuilt")
        shutil.rmtree(rebuilt, ignore_errors=True)

        def build(ino, path, seen):
            os.mkdir(path, 0o755)
            for name, (child, is_dir) in self.tree.get(ino, {}).items():
                if is_dir:
                    if child not in seen:  # a directory synced into two parents comes back once
                        build(child, os.path.join(path, name), seen | {child})
                elif os.path.exists(self.store_path(child)):
                    shutil.copyfile(self.store_path(child), os.path.join(path, name))
                else:
                    open(os.path.join(path, name), "wb").close()

        build(self.root_ino, rebuilt, {self.root_ino})
        shutil.rmtree(self.live)
        os.rename(rebuilt, self.live)
        shutil.rmtree(self.store, ignore_errors=True)
        shutil.rmtree(self.grave, ignore_errors=True)

    # -- helpers ----------------------------------------------------------------------------
    def real(self, path):
        return self.live + path

    def check(self):
        if self.cut:
            raise FuseOSError(errno.EIO)

    def bury(self, real_path):
        """Moves a file or empty directory out of the tree, keeping its inode allocated."""
        self.graves += 1
        os.rename(real_path, os.path.join(self.grave, str(self.graves)))

    def note_write(self, fh, offset, length):
        ino = self.fh_ino[fh]
        pages = self.dirty.setdefault(ino, set())
        pages.update(range(offset // PAGE, (offset + length + PAGE - 1) // PAGE))

    def note_truncate(self, ino, old_size, new_size):
        self.low_size[ino] = min(self.low_size.get(ino, old_size), new_size)

    # -- operations -------------------------------------------------------------------------
    def getattr(self, path, fh=None):
        self.check()
        try:
            st = os.fstat(fh) if fh is not None else os.lstat(self.real(path))
        except OSError as e:
            raise FuseOSError(e.errno)
        return {key: getattr(st, key) for key in ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid",
                                                  "st_atime", "st_mtime", "st_ctime", "st_ino")}

    def readdir(self, path, fh):
        self.check()
        return [".", ".."] + os.listdir(self.real(path))

    def statfs(self, path):
        sv = os.statvfs(self.real(path))
        return {key: getattr(sv, key) for key in ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail",
                                                  "f_files", "f_ffree", "f_favail", "f_flag", "f_namemax")}

    def access(self, path, amode):
        self.check()
        if not os.access(self.real(path), amode):
            raise FuseOSError(errno.EACCES)
        return 0

    def open(self, path, flags):
        self.check()
        real = self.real(path)
        size = os.lstat(real).st_size
        fd = os.open(real, flags & ~(os.O_CREAT | os.O_EXCL))
        ino = os.fstat(fd).st_ino
        self.fh_ino[fd] = ino
        if flags & os.O_TRUNC:
            self.note_truncate(ino, size, 0)
        return fd

    def create(self, path, mode, fi=None):
        self.check()
        fd = os.open(self.real(path), os.O_RDWR | os.O_CREAT | os.O_EXCL, mode)
        self.fh_ino[fd] = os.fstat(fd).st_ino
        return fd

    def read(self, path, size, offset, fh):
        self.check()
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        self.check()
        n = os.pwrite(fh, data, offset)
        self.note_write(fh, offset, n)
        return n

    def truncate(self, path, length, fh=None):
        self.check()
        if fh is not None:
            st = os.fstat(fh)
            os.ftruncate(fh, length)
        else:
            st = os.lstat(self.real(path))
            os.truncate(self.real(path), length)
        self.note_truncate(st.st_ino, st.st_size, length)
        return 0

    def flush(self, path, fh):
        self.check()
        return 0

    def release(self, path, fh):
        self.fh_ino.pop(fh, None)
        os.close(fh)
        return 0

    def fsync(self, path, datasync, fh):
        self.check()
        self.sync_file(fh)
        return 0

    def fsyncdir(self, path, datasync, fh):
        self.check()
        self.snapshot_dir(self.real(path))
        return 0

    def mkdir(self, path, mode):
        self.check()
        os.mkdir(self.real(path), mode)
        return 0

    def rmdir(self, path):
        self.check()
        real = self.real(path)
        if os.listdir(real):
            raise FuseOSError(errno.ENOTEMPTY)
        self.bury(real)
        return 0

    def unlink(self, path):
        self.check()
        self.bury(self.real(path))
        return 0

    def rename(self, old, new, flags=0):
        self.check()
        src, dst = self.real(old), self.real(new)
        if flags & RENAME_EXCHANGE:
            if libc.renameat2(-100, src.encode(), -100, dst.encode(), RENAME_EXCHANGE) != 0:
                raise FuseOSError(ctypes.get_errno())
            return 0
        if os.path.lexists(dst):
            if flags & RENAME_NOREPLACE:
                raise FuseOSError(errno.EEXIST)
            if os.path.isdir(dst) and not os.path.isdir(src):
                raise FuseOSError(errno.EISDIR)
            if os.path.isdir(dst) and os.listdir(dst):
                raise FuseOSError(errno.ENOTEMPTY)
            self.bury(dst)
        os.rename(src, dst)
        return 0

    def chmod(self, path, mode):
        self.check()
        os.chmod(self.real(path), mode)
        return 0

    def chown(self, path, uid, gid):
        self.check()
        os.chown(self.real(path), uid, gid)
        return 0

    def utimens(self, path, times=None):
        self.check()
        os.utime(self.real(path), ns=times) if times else os.utime(self.real(path))
        return 0

    def setxattr(self, path, name, value, options, position=0):
        if path == "/" and name == CUT_XATTR:
            self.cut = True
            return 0
        raise FuseOSError(errno.ENOTSUP)

    def getxattr(self, path, name, position=0):
        raise FuseOSError(errno.ENODATA)


class PowerFUSE(FUSE):
    def rename_fuse_3(self, old, new, flags):
        # mfusepy drops rename flags; keep them (publish swaps directories with RENAME_EXCHANGE).
        return self.operations.rename(old.decode(), new.decode(), flags)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    fs = PowerFS(sys.argv[1])
    # No direct_io: the kernel page cache makes shared mmap work. Single-threaded: a cut is atomic.
    PowerFUSE(fs, sys.argv[2], foreground=True, nothreads=True, fsname="powerfs")
    if fs.cut:
        fs.restore()
        print("powerfs: power cut: kept the durable state only", file=sys.stderr)


if __name__ == "__main__":
    main()
