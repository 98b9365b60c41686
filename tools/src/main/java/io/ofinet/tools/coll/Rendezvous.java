package io.ofinet.tools.coll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Where ranks exchange their listen handles: files in a directory all ranks see (a local
 * directory for one machine, a shared file system across machines). Rank and size come from the
 * launcher's environment — {@code OMPI_COMM_WORLD_RANK}/{@code _SIZE} under mpirun,
 * {@code SLURM_PROCID}/{@code SLURM_NTASKS} under srun — or are given. Under a launcher, the
 * files go in a directory of the job's own within the one given ({@link #jobOf}).
 */
public final class Rendezvous {
    private final Path dir;
    private final int rank;
    private final int size;

    public Rendezvous(Path dir, int rank, int size) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " of " + size);
        }
        this.dir = dir;
        this.rank = rank;
        this.size = size;
    }

    /** Rank and size from mpirun's or srun's environment, if either launched this process. */
    public static int[] fromLauncher(Map<String, String> env) {
        for (String[] names : new String[][] {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
            {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"}}) {
            String rank = env.get(names[0]);
            String size = env.get(names[1]);
            if (rank != null && size != null) {
                return new int[] {Integer.parseInt(rank.trim()), Integer.parseInt(size.trim())};
            }
        }
        return null;
    }

    /**
     * The launcher's name for this job, when it gives one: Open MPI's PMIx namespace or job id,
     * Slurm's job and step. Ranks of one job exchange handles in a directory of the job's own, so
     * that a second run given the same directory never reads a handle the first one left.
     */
    public static Optional<String> jobOf(Map<String, String> env) {
        String job = env.get("PMIX_NAMESPACE");
        if (job == null) {
            job = env.get("OMPI_MCA_ess_base_jobid");
        }
        if (job == null && env.get("SLURM_JOB_ID") != null) {
            job = env.get("SLURM_JOB_ID") + "." + env.getOrDefault("SLURM_STEP_ID", "0");
        }
        return Optional.ofNullable(job).map(String::trim).filter(j -> !j.isEmpty())
                .map(j -> "job-" + j.replaceAll("[^A-Za-z0-9._-]", "_"));
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public void publish(String key, byte[] value) throws IOException {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, key + "." + rank, ".tmp");
        Files.write(tmp, value);
        Files.move(tmp, dir.resolve(key + "." + rank), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The value {@code rank} published under {@code key}, waiting for it within {@code timeout}. */
    public byte[] fetch(int from, String key, Duration timeout) throws IOException, InterruptedException {
        Path file = dir.resolve(key + "." + from);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("rank " + from + " published no " + key + " in " + dir + " within " + timeout);
            }
            Thread.sleep(2);
        }
        return Files.readAllBytes(file);
    }
}
